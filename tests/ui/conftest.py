"""Fixtures shared by the window tests (the window itself is in tests/conftest.py)."""

import pytest


@pytest.fixture(scope="module")
def app_root(window):
    """The app's root for the tests of one module, in a list: made by the first test that asks
    (every screen made: 1-2 s of CPU here), then started afresh over each test's own runtime and
    journal by the next (``Root.new_session``: what a fresh start shows), instead of made again.
    A test about the start itself (what is made first, start-up messages) makes its own root."""
    roots: list = []
    yield roots
    roots.clear()
