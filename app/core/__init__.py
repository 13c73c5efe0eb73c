"""What every game shares, whatever its mode or feature: the game and its board, seats, errors, players'
names, the stored schema and the settings. Nothing here does I/O beyond reading its settings."""
