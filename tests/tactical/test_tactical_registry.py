"""The tactical resolver registry (pure): names are unique and lookups fail clearly."""

import pytest

from tactical.rules import registry


@pytest.fixture
def clean_registry(monkeypatch):
    monkeypatch.setattr(registry, "RESOLVERS", {})
    return registry


def test_register_and_find(clean_registry):
    record = registry.ResolverRecord("demo", "Demo", "none", resolve=lambda *a: None)
    registry.register(record)
    assert registry.find_resolver("demo") is record
    with pytest.raises(ValueError, match="already registered"):
        registry.register(record)


def test_unknown_resolver_names_what_is_registered(clean_registry):
    with pytest.raises(ValueError, match="no tactical resolver named 'chess'.*none yet"):
        registry.find_resolver("chess")


def test_rules_packages_import_no_django():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent.parent
    for package in ("campaign/rules", "tactical/rules"):
        for path in (root / package).rglob("*.py"):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    assert top not in {"django", "celery", "rest_framework", "random"}, f"{path}: imports {name}"
