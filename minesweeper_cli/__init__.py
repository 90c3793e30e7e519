"""The ``minesweeper`` command-line tool: one module per subcommand."""
