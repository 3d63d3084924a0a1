"""The running application, with no front end: what a table plays through.

Every front end (the Kivy app in ``ui/``, the console, the phone pages in ``web/``, the CLI in
``commands/``) is a thin adapter over the objects of this package; none of them imports another.

- ``Session`` (session.py): the game on the table: new, resume, apply, undo and redo, the seat
  picked for the next change, the cards laid; observers are plain callbacks.
- ``Scans`` (scans.py): the readers' life, each tag resolved to a card with the collection's live
  UID map, handed to the session and to the front end.
- ``Announcer`` (announcer.py): what is said about the table, the same words whichever front end
  produced the change; ``Voice`` (voice.py): the one door to speech, on its own thread.
- ``Keys`` (keys.py): the key controller, one dispatch path for a keyboard, a numeric keypad, or
  a keypad line typed in a terminal; ``KeyMap`` (keymap.py, keymap.yaml): which key does what,
  and its words; keynames.py: key events and keypad lines as the map names them; key_hosts.py:
  what the keys act on (the Session and a front end's screens); keys_doc.py writes docs/keys.md.
- ``Phones`` (phones.py): which seats have a phone, and the cards each keeps private.
- ``Workers`` (workers.py): one small pool for background jobs (loading cards, checking decks).
- ``Runtime`` (runtime.py): the above put together, as the app and the console start them.

Nothing here imports Kivy, and nothing here knows which front end is running.
"""
