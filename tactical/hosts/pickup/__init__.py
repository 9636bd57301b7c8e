"""Pickup battles: one battle under any rule book with online play, without a campaign
(issue 17 item 4; docs/battles.md "Pickup battles")."""
