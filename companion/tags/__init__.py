"""From a tag to a card: read a reference from its NDEF message, else from the UID map."""
