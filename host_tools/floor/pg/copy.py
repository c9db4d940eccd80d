"""The page's read-only view of the recorder's events on PostgreSQL: the
same calls as the SQLite RecordedCopy (host_tools/floor/page/recorded.py).
A database that cannot be reached reads as nothing new yet, as a SQLite
file not yet made does; the page reads again each second until it holds
what the table's last `recorded` said (floorview.py)."""

import json
import threading

from host_tools import HostToolError
from host_tools.floor.base.read_trouble import ReadTrouble
from host_tools.floor.pg import schema


class PgRecordedCopy:
    def __init__(self, url):
        self.url = url
        self.conn = None
        self.lock = threading.Lock()
        self.trouble = ReadTrouble("the recorder's events", lambda text: schema.log("page " + text))

    def _rows(self, sql, args):
        with self.lock:
            try:
                if self.conn is None or self.conn.closed:
                    self.conn = schema.connect(self.url)
                rows = self.conn.execute(sql, args).fetchall()
            except (HostToolError, schema.driver().Error) as e:
                self.trouble.failed(str(e).strip()[:160])
                if self.conn is not None:
                    self.conn.close()
                self.conn = None
                return []
            self.trouble.worked()
            return rows

    def records(self, table, board, journal, after, upto):
        """[(record, received)] of one journal, seq in (after, upto], in order."""
        rows = self._rows(
            "select record, received from events where tbl=%s and board=%s and journal=%s and seq>%s and seq<=%s"
            " order by seq",
            (table, board, journal, after, upto),
        )
        return [(json.loads(r), received) for r, received in rows]

    def table_records(self, table):
        """[(record, received)] of every journal of `table`, oldest journal first."""
        rows = self._rows("select record, received from events where tbl=%s order by journal, seq", (table,))
        return [(json.loads(r), received) for r, received in rows]

    def close(self):
        with self.lock:
            if self.conn is not None:
                self.conn.close()
                self.conn = None
