"""Tools that play games: the bot (`kaboom bot`, the page's "What would the bot do?") and the Flags
tournament (`kaboom tournament`, the KöMaL S.27 schedule). They use the modes and the solver, never the
service, the store or the web."""
