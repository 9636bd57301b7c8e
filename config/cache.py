"""Django's Redis cache, keeping one client per connection pool.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` object for every cache
call, and each one copies redis-py's table of about 340 response callbacks: on our host that is
about a third of the CPU a cache read costs. A ``redis.Redis`` is safe to share between threads
(it takes a connection from its pool per command) and its pool notices a fork, so one per pool is
kept. Set through ``CACHES`` in config/settings.py when ``REDIS_URL`` is set.
"""

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class PooledClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            if index not in self._pools:
                self._pools[index] = self._pool_class.from_url(self._servers[index], **self._pool_options)
            client = self._clients[index] = self._client(connection_pool=self._pools[index])
        return client


class SharedClientRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = PooledClientRedisCacheClient
