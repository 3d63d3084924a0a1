"""Reading the rows of a damaged SQLite file page by page, trusting none of its structure.

SQLite cannot read past a damaged page (``quick_check`` fails, a query stops at the first bad
page), the ``sqlite3`` shell's ``.recover`` of Debian 12 (3.40.1) gives nothing once the header or
the schema page is gone, and Python's ``sqlite3`` does not offer SQLite's recovery API. So the
file is read here the way that API does it: every page that looks like a table leaf is decoded
cell by cell, wherever it sits, without following a b-tree, the schema or an index; pages of the
write-ahead log are read too, later frames winning. A row is only returned whole: a cell whose
bytes do not decode (a page half overwritten) is passed over, never guessed.

The file format is SQLite's documented one (https://www.sqlite.org/fileformat2.html). Rows are
returned as ``(page, rowid, values)``; which table a row belongs to is for the caller to say from
its values, since the schema itself may be lost.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MAGIC = b"SQLite format 3\x00"
WAL_MAGIC = (0x377F0682, 0x377F0683)
PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)
TABLE_LEAF = 0x0D
BTREE_KINDS = (0x0D, 0x05, 0x0A, 0x02)
MAX_BYTES = 1 << 30  # a journal is a few MB; past 1 GB this is not one


class _Bad(Exception):
    """A cell that does not decode."""


def _varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    value = 0
    for i in range(9):
        if pos >= end:
            raise _Bad("varint past the end")
        byte = buf[pos]
        pos += 1
        if i == 8:
            return (value << 8) | byte, pos
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos
    raise _Bad("unreachable")  # pragma: no cover


def _record(payload: bytes) -> list[Any]:
    """The values of one record (SQLite's record format)."""
    end = len(payload)
    size, pos = _varint(payload, 0, end)
    if size < 1 or size > end:
        raise _Bad("record header size")
    types = []
    while pos < size:
        serial, pos = _varint(payload, pos, size)
        types.append(serial)
    if pos != size or not types:
        raise _Bad("record header")
    values: list[Any] = []
    body = size
    for serial in types:
        if serial == 0:
            values.append(None)
        elif 1 <= serial <= 6:
            n = (1, 2, 3, 4, 6, 8)[serial - 1]
            if body + n > end:
                raise _Bad("integer past the end")
            values.append(int.from_bytes(payload[body:body + n], "big", signed=True))
            body += n
        elif serial == 7:
            if body + 8 > end:
                raise _Bad("real past the end")
            values.append(struct.unpack(">d", payload[body:body + 8])[0])
            body += 8
        elif serial in (8, 9):
            values.append(serial - 8)
        elif serial >= 12:
            n = (serial - 12) // 2
            if body + n > end:
                raise _Bad("text past the end")
            raw = payload[body:body + n]
            body += n
            if serial % 2:
                try:
                    values.append(raw.decode("utf-8"))
                except UnicodeDecodeError as exc:
                    raise _Bad("text is not UTF-8") from exc
            else:
                values.append(raw)
        else:
            raise _Bad("reserved serial type")
    if body != end:
        raise _Bad("record length")
    return values


class File:
    """The pages of a database file and of its write-ahead log, as far as they can be read."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as f:
            self.data = f.read(MAX_BYTES)
        self.header_ok = self.data[:16] == MAGIC
        self.page_size, self.reserved = self._geometry()
        self.wal: dict[int, bytes] = {}
        wal = path.with_name(path.name + "-wal")
        try:
            with open(wal, "rb") as f:
                self.wal = self._wal_pages(f.read(MAX_BYTES))
        except OSError:
            pass

    def _geometry(self) -> tuple[int, int]:
        if self.header_ok:
            size = int.from_bytes(self.data[16:18], "big")
            size = 65536 if size == 1 else size
            reserved = self.data[20]
            if size in PAGE_SIZES and reserved < 64:
                return size, reserved
        # The header is lost: the page size is the one under which most pages look like b-tree pages.
        best, score = PAGE_SIZES[0], -1
        for size in PAGE_SIZES:
            n = sum(1 for off in range(size, len(self.data), size) if self._plausible(off, size))
            if n > score:
                best, score = size, n
        return best, 0

    def _plausible(self, off: int, size: int) -> bool:
        kind = self.data[off]
        if kind not in BTREE_KINDS or off + 8 > len(self.data):
            return False
        cells = int.from_bytes(self.data[off + 3:off + 5], "big")
        start = int.from_bytes(self.data[off + 5:off + 7], "big") or 65536
        return 0 < cells < size // 2 and start <= size

    def _wal_pages(self, wal: bytes) -> dict[int, bytes]:
        """The pages of the committed frames of the log, the latest version of each."""
        if len(wal) < 32 or int.from_bytes(wal[:4], "big") not in WAL_MAGIC:
            return {}
        size = int.from_bytes(wal[8:12], "big")
        if size not in PAGE_SIZES:
            return {}
        if not self.header_ok:
            self.page_size = size
        salts = wal[16:24]
        pages: dict[int, bytes] = {}
        pending: dict[int, bytes] = {}
        pos = 32
        while pos + 24 + size <= len(wal):
            head = wal[pos:pos + 24]
            if head[8:16] != salts:
                break  # a frame of an earlier generation of the log: not part of the file now
            number = int.from_bytes(head[:4], "big")
            pending[number] = wal[pos + 24:pos + 24 + size]
            if int.from_bytes(head[4:8], "big"):  # a commit frame: what came before it is committed
                pages.update(pending)
                pending.clear()
            pos += 24 + size
        return pages

    def page(self, number: int) -> bytes | None:
        if number in self.wal:
            return self.wal[number]
        off = (number - 1) * self.page_size
        if number < 1 or off + self.page_size > len(self.data):
            return None
        return self.data[off:off + self.page_size]

    def numbers(self) -> list[int]:
        """Every page number the file and its log hold."""
        count = len(self.data) // self.page_size
        return sorted(set(range(1, count + 1)) | set(self.wal))

    def rows(self) -> Iterator[tuple[int, int, list[Any]]]:
        """Every row of every table leaf page that decodes, as (page, rowid, values)."""
        for number in self.numbers():
            page = self.page(number)
            if page is None:
                continue
            yield from self._leaf(number, page)

    def _leaf(self, number: int, page: bytes) -> Iterator[tuple[int, int, list[Any]]]:
        base = 100 if number == 1 else 0
        if len(page) < base + 8 or page[base] != TABLE_LEAF:
            return
        usable = self.page_size - self.reserved
        cells = int.from_bytes(page[base + 3:base + 5], "big")
        if cells * 2 + base + 8 > usable:
            return
        for i in range(cells):
            ptr = int.from_bytes(page[base + 8 + 2 * i:base + 10 + 2 * i], "big")
            if not base + 8 <= ptr < usable:
                continue
            try:
                rowid, payload = self._cell(page, ptr, usable)
                yield number, rowid, _record(payload)
            except _Bad:
                continue

    def _cell(self, page: bytes, ptr: int, usable: int) -> tuple[int, bytes]:
        size, pos = _varint(page, ptr, usable)
        rowid, pos = _varint(page, pos, usable)
        if rowid >= 1 << 63:
            rowid -= 1 << 64
        if size > MAX_BYTES:
            raise _Bad("payload size")
        most = usable - 35
        if size <= most:
            if pos + size > usable:
                raise _Bad("payload past the page")
            return rowid, page[pos:pos + size]
        least = (usable - 12) * 32 // 255 - 23
        local = least + (size - least) % (usable - 4)
        if local > most:
            local = least
        if pos + local + 4 > usable:
            raise _Bad("payload past the page")
        parts = [page[pos:pos + local]]
        got = local
        nxt = int.from_bytes(page[pos + local:pos + local + 4], "big")
        seen = set()
        while got < size:
            if nxt in seen or nxt == 0:
                raise _Bad("overflow chain broken")
            seen.add(nxt)
            over = self.page(nxt)
            if over is None:
                raise _Bad("overflow page missing")
            take = min(usable - 4, size - got)
            parts.append(over[4:4 + take])
            got += take
            nxt = int.from_bytes(over[:4], "big")
        return rowid, b"".join(parts)
