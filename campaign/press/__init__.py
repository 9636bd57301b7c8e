"""Press: messages between the players of a campaign, of any campaign layer (docs/press.md).

``models`` (conversations, their seats, messages, read marks), ``seats`` (the seats of a
campaign, asked of its layer), ``visibility`` (what each user may read: fog of war), ``actions``
(every change: post, announce, options, read marks, mail replies), ``replies`` (signed reply
addresses and the cleaning of a mailed reply), ``mail`` (the emails), ``views`` and ``api``.
"""
