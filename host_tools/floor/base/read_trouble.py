"""A reader's failures, said on stderr once: the page's copies of the recorder's
events (SQLite and PostgreSQL) read again each second while they fail."""


class ReadTrouble:
    """What a copy says of its reads: a line when they start failing (or fail for another
    reason), one when they work again; not a line a second while the page reads again."""

    def __init__(self, what, say):
        self.what = what
        self.say = say
        self.reason = None

    def failed(self, reason):
        if reason != self.reason:
            self.reason = reason
            self.say("cannot read %s: %s" % (self.what, reason))

    def worked(self):
        if self.reason is not None:
            self.reason = None
            self.say("reads %s again" % self.what)
