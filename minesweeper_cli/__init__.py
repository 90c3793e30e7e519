"""The ``minesweeper`` command-line tool: one module per subcommand; the play apps are :mod:`minesweeper_cli.apps`."""
