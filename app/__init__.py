"""Kaboom: game rules, the store, the web layer and the command line."""
