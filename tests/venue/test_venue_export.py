"""The Archon export: the CSV files the VEKN's tournament tools paste into the Archon workbook,
column for column as lionel-panhaleux/archon-bot writes them (``archon_bot/commands.py``,
``DownloadReports``): Methuselahs.csv, Round-N.csv, Finals.csv, no header row; a table of four
is followed by an empty row (the workbook's tables are five rows)."""

from __future__ import annotations

import csv
import io
import zipfile

from companion.venue import export
from companion.venue.event import EventStore


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_archon_files_have_the_workbook_columns(tmp_path):
    store = EventStore(tmp_path / "event.sqlite3", "night", "vtes")
    names = ["Ann Smith", "Bob", "Cy Van Damme", "Dee Doe", "Eve Eto", "Fay Fu", "Gus Go", "Hal Ho", "Ivy Ix",
             "Never Seated"]
    for i, name in enumerate(names):
        store.register(name, f"100000{i}")
    five, four = names[:5], names[5:9]
    store.add_round([five, four])
    store.apply_entry(1, 1, "result", {"round": 1, "players": five, "vp": [2, 1, 1, 1, 0]})
    store.apply_entry(2, 1, "result", {"round": 1, "players": four, "vp": [1.5, 0, 0.5, 0.5]})
    final = [names[0], names[5], names[1], names[2], names[3]]
    store.add_round([final], final=True)
    store.apply_entry(1, 2, "result", {"round": 2, "players": final, "vp": [0.5, 2.5, 0, 0, 0.5]})

    files = export.archon_files(store)
    assert list(files) == ["Methuselahs.csv", "Round-1.csv", "Finals.csv"]
    meth = _rows(files["Methuselahs.csv"])
    # Player Num, First Name, Last Name, Country, V:EKN #, Games Played, DQ: nobody who never sat
    assert meth[0] == ["1", "Ann", "Smith", "", "1000000", "2", ""]
    assert meth[2] == ["3", "Cy", "Van Damme", "", "1000002", "2", ""]
    assert meth[6] == ["7", "Gus", "Go", "", "1000006", "1", ""]
    assert len(meth) == 9 and all(len(r) == 7 for r in meth)
    r1 = _rows(files["Round-1.csv"])
    # Player Num, First Name, Last Name, Table, VP; the table of four padded to five rows
    assert r1[0] == ["1", "Ann", "Smith", "1", "2"]
    assert r1[5] == ["6", "Fay", "Fu", "2", "1.5"]
    assert r1[7] == ["8", "Hal", "Ho", "2", "0.5"]
    assert r1[9] == ["", "", "", "", ""] and len(r1) == 10
    fin = _rows(files["Finals.csv"])
    # Player Num, First Name, Last Name, Table (1), Seat (the seed), VP
    assert fin == [["1", "Ann", "Smith", "1", "1", "0.5"], ["6", "Fay", "Fu", "1", "2", "2.5"],
                   ["2", "Bob", "", "1", "3", "0"], ["3", "Cy", "Van Damme", "1", "4", "0"],
                   ["4", "Dee", "Doe", "1", "5", "0.5"]]
    with zipfile.ZipFile(io.BytesIO(export.archon_zip(store))) as z:
        assert z.namelist() == list(files) and z.read("Round-1.csv").decode() == files["Round-1.csv"]
    store.close()
