"""What-if runs: two fleets fight K doctrine battles in the background (``runs``: the actions
and the runner; ``pool`` and ``worker``: the battles spread over worker processes, no Django),
with their pages, API and URLs."""
