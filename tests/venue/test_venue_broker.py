"""The venue's broker: a real Mosquitto with per-table users and an ACL."""

from __future__ import annotations

import json

import aiomqtt
import pytest

from companion.venue import topics
from tests.venue.helpers import needs_mosquitto, run

pytestmark = needs_mosquitto


def _client(b, user: str, password: str, **kw) -> aiomqtt.Client:
    return aiomqtt.Client("127.0.0.1", b.port, username=user, password=password,
                          protocol=aiomqtt.ProtocolVersion.V5, **kw)


def test_a_table_cannot_publish_on_another_tables_topics(broker):
    creds = broker.credentials

    async def scenario() -> list[tuple[str, dict]]:
        got: list[tuple[str, dict]] = []
        async with _client(broker, "hub", creds.hub) as hub:
            await hub.subscribe(f"{topics.prefix(broker.event)}/table/+/#", qos=1)
            async with _client(broker, topics.table_user(2), creds.tables[2]) as t2:
                forged = {"table": 1, "seq": 1, "kind": "result", "body": {"vp": [5, 0, 0, 0, 0]}}
                await t2.publish(topics.table_topic(broker.event, 1, "entry"), json.dumps(forged), qos=1)
                own = {"table": 2, "seq": 1}
                await t2.publish(topics.table_topic(broker.event, 2, "entry"), json.dumps(own), qos=1)
            async for message in hub.messages:
                got.append((str(message.topic), json.loads(message.payload)))
                if len(got) == 1:
                    break
        return got

    got = run(scenario())
    # The forged message (sent first on the same connection) never reached the hub; the table's own did.
    assert got == [(topics.table_topic(broker.event, 2, "entry"), {"table": 2, "seq": 1})]


def test_a_wrong_password_is_refused(broker):
    async def scenario() -> None:
        async with _client(broker, topics.table_user(1), "not-the-password"):
            pass

    with pytest.raises(aiomqtt.MqttError):
        run(scenario())


def test_a_table_reads_the_hubs_topics(broker):
    creds = broker.credentials

    async def scenario() -> dict:
        async with _client(broker, "hub", creds.hub) as hub:
            await hub.publish(topics.hub_topic(broker.event, "clock"), json.dumps({"round": 1}), qos=1, retain=True)
        async with _client(broker, topics.table_user(3), creds.tables[3]) as t3:
            await t3.subscribe(topics.hub_topic(broker.event, "clock"), qos=1)
            async for message in t3.messages:
                return json.loads(message.payload)
        return {}

    assert run(scenario()) == {"round": 1}


def test_passwords_are_hashed_on_disk(broker):
    text = (broker.folder / "passwd").read_text()
    assert broker.credentials.hub not in text
    assert all(line.split(":", 1)[1].startswith("$7$") for line in text.splitlines())
