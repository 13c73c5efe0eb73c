"""A passkey authenticator in software, for tests of the server's side of WebAuthn without a browser: it answers
registration and sign-in options as a browser with a platform authenticator would (attestation "none", an ES256
key), and can be told to sign for another site or origin, or with a counter that goes back, as an attacker would."""

from __future__ import annotations

import hashlib
import json
import secrets
import struct
from dataclasses import dataclass, field

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

# The authenticator data's flags: the user was present (UP), verified (UV), and the data carries a credential (AT).
PRESENT, VERIFIED, ATTESTED = 0x01, 0x04, 0x40


def _b64(data: bytes) -> str:
    return bytes_to_base64url(data)


@dataclass
class SoftAuthenticator:
    origin: str  # the page's origin, as the browser would write it in the client data
    rp_id: str = ""  # the site it makes passkeys for; the origin's host name by default
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    credential_id: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    counter: int = 0

    def __post_init__(self) -> None:
        self.rp_id = self.rp_id or self.origin.split("://", 1)[1].split(":")[0]

    def _client_data(self, kind: str, options: dict, origin: str | None) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": options["challenge"], "origin": origin or self.origin, "crossOrigin": False}
        ).encode()

    def _authenticator_data(self, rp_id: str, flags: int, extra: bytes = b"") -> bytes:
        return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", self.counter) + extra

    def make(self, options: dict | str, origin: str | None = None) -> dict:
        """The browser's answer to registration options (PublicKeyCredential.toJSON()'s shape)."""
        options = json.loads(options) if isinstance(options, str) else options
        numbers = self.key.public_key().public_numbers()
        cose = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + cbor2.dumps(cose)
        data = self._authenticator_data(options["rp"]["id"], PRESENT | VERIFIED | ATTESTED, attested)
        client_data = self._client_data("webauthn.create", options, origin)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": data})
        return {
            "id": _b64(self.credential_id),
            "rawId": _b64(self.credential_id),
            "type": "public-key",
            "response": {"clientDataJSON": _b64(client_data), "attestationObject": _b64(attestation)},
            "clientExtensionResults": {},
        }

    def use(self, options: dict | str, origin: str | None = None, rp_id: str | None = None, step: int = 1) -> dict:
        """The browser's answer to sign-in options: signed for `rp_id` (its own by default), the counter moved by
        `step` (0 or less: a counter that does not go on, as a cloned authenticator's)."""
        options = json.loads(options) if isinstance(options, str) else options
        self.counter += step
        data = self._authenticator_data(rp_id or self.rp_id, PRESENT | VERIFIED)
        client_data = self._client_data("webauthn.get", options, origin)
        signature = self.key.sign(data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return {
            "id": _b64(self.credential_id),
            "rawId": _b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": _b64(client_data),
                "authenticatorData": _b64(data),
                "signature": _b64(signature),
                "userHandle": None,
            },
            "clientExtensionResults": {},
        }


def challenge_of(options: dict | str) -> bytes:
    options = json.loads(options) if isinstance(options, str) else options
    return base64url_to_bytes(options["challenge"])
