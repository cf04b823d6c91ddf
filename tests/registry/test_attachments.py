"""Voicemail announcements: the uploaded audio is checked by content, stored once and served back."""

from __future__ import annotations

import base64
import io
import wave

import pytest

from telephony.keys import EVENT_LOG

ADMIN = {"email": "admin@example.com", "password": "change-me-now"}


def wav_bytes(frames: int = 800) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\0\0" * frames)
    return buffer.getvalue()


@pytest.fixture
async def headers(client):
    answer = await (await client.post("/v1.2/voipstudio/login", json=ADMIN)).json()
    return {"X-Auth-Token": answer["user_token"], "user_id": str(answer["user_id"])}


async def upload(client, headers, data: bytes):
    """An announcement of the caller's own extension (its user)."""
    body = {"extension_id": int(headers["user_id"]), "description": "greeting", "data": base64.b64encode(data).decode()}
    return await client.post("/v1.2/voipstudio/vmannouncements", json=body, headers=headers)


async def test_an_uploaded_file_is_served_back_byte_for_byte_with_its_media_type(client, headers):
    audio = wav_bytes()
    created = await (await upload(client, headers, audio)).json()
    assert created["data"]["format"] == "wav" and created["data"]["size"] == len(audio)
    served = await client.get(f"/v1.2/voipstudio/vmannouncements/{created['data']['id']}.wav", headers=headers)
    assert served.status == 200 and served.content_type == "audio/wav"
    assert await served.read() == audio


async def test_the_same_file_uploaded_twice_is_stored_once(client, headers):
    audio = wav_bytes(321)
    for _ in range(2):
        assert (await upload(client, headers, audio)).status == 201
    stored = await client.app[EVENT_LOG].read(types=["blob.stored"])
    assert len(stored) == 1


async def test_bytes_that_only_claim_to_be_audio_are_refused(client, headers):
    fake = b"RIFF\x00\x00\x00\x00WAVE" + b"\x00" * 8
    answer = await upload(client, headers, fake)
    assert answer.status == 400
    assert (await answer.json())["errors"][0]["field"] == "data"


async def test_a_patch_with_a_new_file_replaces_what_is_served(client, headers):
    created = await (await upload(client, headers, wav_bytes())).json()
    newer = wav_bytes(1600)
    path = f"/v1.2/voipstudio/vmannouncements/{created['data']['id']}"
    patched = await client.patch(path, json={"data": base64.b64encode(newer).decode()}, headers=headers)
    assert patched.status == 200 and (await patched.json())["data"]["size"] == len(newer)
    assert await (await client.get(path + ".wav", headers=headers)).read() == newer
