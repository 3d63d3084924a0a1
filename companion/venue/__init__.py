"""The venue: many tables, one room. An organiser's hub collects every table's game over MQTT
through a Mosquitto broker (README.md, "Many tables: a venue"; docs/venue.md).

- ``broker``: the Mosquitto the hub starts (config, password and ACL files in the event folder);
- ``topics``: the topic names both sides use, and who may write which;
- ``link``: the table side (an outbox from the table's journal, retained state, presence, the
  round clock received and spoken);
- ``event``, ``scoring``, ``seating``: the event in its own SQLite file, its results and standings,
  its seating (a game's own tournament through the registry's ``tournament`` hook, or a league
  night);
- ``hub``, ``board``: the hub process and its organiser and public pages;
- ``simulate``: a whole event played by simulated tables, for a demo, the tests and the bench.

A front end on top of the core: it imports companion.play and the domain packages, no other
front end.
"""
