"""The phones' front end: every player's phone as their own seat, served by the companion
(companion.web.server), over the same core Session and scans as the window and the console."""
