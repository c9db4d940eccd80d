"""The words and figures people read on the floor: money as the pit reads it.
One place, so the page, the CLI and the controller's alerts say the same."""


def money(cents):
    """Integer cents as the pit reads them: $1,234.56."""
    return "$%s.%02d" % ("{:,}".format(cents // 100), cents % 100)
