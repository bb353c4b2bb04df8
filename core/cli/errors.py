"""The CLI's one error type, shared by the command modules and the dispatcher."""


class CliError(Exception):
    """Bad input: printed as one line on stderr, exit code 2."""
