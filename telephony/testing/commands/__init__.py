"""The `telephony` subcommands of testing an integration, `listen` and `scenario`: each module has the
`add(add_command)` of a `telephony.cli` command module, and the package's entry points (the group
`telephony.commands` in pyproject.toml) add them to the command line, which imports nothing of them."""
