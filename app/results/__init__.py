"""Rules over finished games: a player's records and tallies, a game's review, the boards of the day and
their ladders. Pure functions of what they are given: no store, no clock of their own, no I/O."""
