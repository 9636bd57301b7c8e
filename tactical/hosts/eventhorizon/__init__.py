"""Event Horizon's door to the tactical engines: ``lifecycle`` hands an Event Horizon turn's
battles off as games and takes their results back into the turn (issue 5; docs/battles.md)."""
