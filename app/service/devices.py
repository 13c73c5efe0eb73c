"""The devices a player plays from: passkeys (py_webauthn) and one-time link codes, each of which makes another
device the same player, and the limits every operation on a player as a whole keeps per client address. Which
player a device becomes, and whether it brings its own games along, is the web layer's session and the players'
part (app/service/players.py: the merge)."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any

import webauthn
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url, parse_client_data_json
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from app.core.errors import KaboomError
from app.core.game import Invalid, Refused
from app.core.languages import lazy_gettext
from app.results.daily import anonymous_name
from app.service.context import Context


class PlayerLimited(KaboomError):
    """Too many exports, deletions, passkeys, link codes or sign-ins from one client address in the current window."""

    @classmethod
    def of(cls, limit: int, window: float) -> PlayerLimited:
        return cls(
            lazy_gettext(
                "Too many downloads, deletions, passkeys or link codes from your address: at most %(limit)s every "
                "%(window)s seconds. Wait a little.",
                limit=limit,
                window=format(window, "g"),
            )
        )

    @classmethod
    def of_sign_ins(cls, limit: int, window: float) -> PlayerLimited:
        return cls(
            lazy_gettext(
                "Too many sign-ins from your address: at most %(limit)s every %(window)s seconds. Wait a little.",
                limit=limit,
                window=format(window, "g"),
            )
        )


def within_limit(context: Context, client: str) -> None:
    """Count an export, a deletion, a passkey kept or a link code made for the client; PlayerLimited past it."""
    limit, window = context.settings.player_limit, context.settings.player_window
    if not context.store.allow(f"player:{client}", limit, window):
        raise PlayerLimited.of(limit, window)


def within_sign_in_limit(context: Context, client: str) -> None:
    """Count a passkey's ceremony begun or a link code entered for the client; PlayerLimited past it."""
    limit, window = context.settings.sign_in_limit, context.settings.player_window
    if not context.store.allow(f"sign-in:{client}", limit, window):
        raise PlayerLimited.of_sign_ins(limit, window)


# How long a passkey's ceremony may take between the options and the answer (browsers allow 60 s by default, a
# person choosing among their passkeys may take longer).
CEREMONY_SECONDS = 300
# How long a link code links, and how it is written: Crockford's base 32 (no I, L, O or U, so nothing reads as
# another symbol), 12 symbols shown in three groups of four: 60 bits, guessed at most `sign_in_limit` times per
# address per `player_window` seconds.
LINK_CODE_SECONDS = 600
LINK_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LINK_CODE_LENGTH = 12
# What a person may call a passkey (it is shown to them alone).
PASSKEY_NAME_LENGTH = 40


@dataclass(frozen=True)
class Site:
    """Where the pages are, as a browser sees them: the relying party passkeys are made for, and the origin
    their answers must come from."""

    rp_id: str
    origin: str


@dataclass(frozen=True)
class Passkey:
    credential_id: str
    name: str
    created_at: float
    last_used_at: float | None
    rp_id: str


@dataclass(frozen=True)
class LinkCode:
    code: str  # as typed: twelve symbols of LINK_CODE_ALPHABET
    until: float  # the clock's seconds

    @property
    def shown(self) -> str:
        return "-".join(self.code[start : start + 4] for start in range(0, LINK_CODE_LENGTH, 4))


class SignInRefused(Refused):
    """A passkey or a link code that signs nobody in here; nothing changed."""


def read_link_code(text: Any) -> str | None:
    """A link code as a person may type it (any case, spaces and dashes, O for 0, I and L for 1), or None."""
    if not isinstance(text, str):
        return None
    code = text.upper().translate(str.maketrans("OIL", "011", " -\t"))
    return code if len(code) == LINK_CODE_LENGTH and all(symbol in LINK_CODE_ALPHABET for symbol in code) else None


def _passkey(credential_id: str, data: str) -> Passkey | None:
    try:
        fields = json.loads(data)
        return Passkey(
            credential_id, fields["name"], float(fields["created_at"]), fields.get("last_used_at"), fields["rp_id"]
        )
    except (ValueError, KeyError, TypeError):
        return None  # damaged: listed by nobody, and signs nobody in


def _checked(verify: Any, credential: Any, challenge: str, site: Site, **more: Any) -> Any:
    """py_webauthn's check of a browser's answer to the ceremony of `challenge` on `site`; SignInRefused saying why
    it does not check out (another site's signature, another origin, a counter that went back, a malformed answer)."""
    try:
        return verify(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=site.rp_id,
            expected_origin=site.origin,
            **more,
        )
    except (WebAuthnException, ValueError, TypeError, KeyError) as error:
        raise SignInRefused(lazy_gettext("this passkey could not be checked: %(why)s", why=str(error))) from None


def passkeys_in(kept: dict[str, str]) -> list[Passkey]:
    """Passkeys as the store keeps them, the first made first; a damaged one is left out."""
    found = [passkey for key, data in kept.items() if (passkey := _passkey(key, data)) is not None]
    return sorted(found, key=lambda passkey: passkey.created_at)


def checked_passkey_name(name: Any) -> str:
    """A passkey's name, trimmed: 1 to PASSKEY_NAME_LENGTH characters, none of them a control."""
    if not isinstance(name, str):
        raise Invalid(lazy_gettext("a passkey's name is text"))
    name = " ".join(name.split())
    if not 1 <= len(name) <= PASSKEY_NAME_LENGTH or any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name):
        raise Invalid(
            lazy_gettext("a passkey's name has 1 to %(length)s letters, digits or signs", length=PASSKEY_NAME_LENGTH)
        )
    return name


class DeviceOperations:
    def __init__(self, context: Context):
        self.context = context
        self.store = context.store
        self.settings = context.settings

    # ----- passkeys --------------------------------------------------------------------------------------------

    def _passkey_user(self, player: str) -> tuple[bytes, str]:
        """The user handle an authenticator keeps with the player's passkeys (not their id: the id opens their
        games), and the name it shows them by: the one they chose for the ladders, else their anonymous tag."""
        handle = hmac.new(self.context.board_secret, f"kaboom passkey user|{player}".encode(), hashlib.sha256)
        name = self.store.names_of([player]).get(player) or anonymous_name(player, self.context.board_secret)
        return handle.digest()[:16], name

    async def passkeys(self, player: str) -> list[Passkey]:
        """The player's passkeys, the first made first."""
        return passkeys_in(await self.context.offload(self.store.passkeys_of, player))

    async def passkey_options(self, player: str, client: str, site: Site) -> str:
        """What a browser is asked to make a passkey with (JSON for navigator.credentials.create)."""
        return await self.context.offload(self._passkey_options, player, client, site)

    def _passkey_options(self, player: str, client: str, site: Site) -> str:
        # Counted with the sign-ins: each ceremony begun keeps a token for a while, whichever way it goes.
        within_sign_in_limit(self.context, client)
        handle, name = self._passkey_user(player)
        options = webauthn.generate_registration_options(
            rp_id=site.rp_id,
            rp_name="Kaboom",
            user_id=handle,
            user_name=name,
            user_display_name=name,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.PREFERRED
            ),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(key)) for key in self.store.passkeys_of(player)
            ],
            timeout=CEREMONY_SECONDS * 1000,
        )
        challenge = bytes_to_base64url(options.challenge)
        self.store.put_token(f"passkey-made:{challenge}", player, self.context.clock() + CEREMONY_SECONDS)
        return webauthn.options_to_json(options)

    async def add_passkey(self, player: str, client: str, site: Site, credential: Any, name: Any) -> Passkey:
        """Keep the passkey a browser made from passkey_options, under `name`; SignInRefused when it does not
        check out (another ceremony's, a stale one, another site's)."""
        name = checked_passkey_name(name)
        return await self.context.offload(self._add_passkey, player, client, site, credential, name)

    def _add_passkey(self, player: str, client: str, site: Site, credential: Any, name: str) -> Passkey:
        within_limit(self.context, client)
        challenge = self._challenge_of(credential)
        if self.store.take_token(f"passkey-made:{challenge}") != player:
            raise SignInRefused(lazy_gettext("this passkey was not asked for here, or too long ago: add it again"))
        made = _checked(webauthn.verify_registration_response, credential, challenge, site)
        credential_id = bytes_to_base64url(made.credential_id)
        now = self.context.clock()
        data = {
            "name": name,
            "public_key": bytes_to_base64url(made.credential_public_key),
            "sign_count": made.sign_count,
            "created_at": now,
            "last_used_at": None,
            "rp_id": site.rp_id,
        }
        if not self.store.keep_passkey(player, credential_id, json.dumps(data)):
            raise SignInRefused(lazy_gettext("this passkey is kept here already"))
        return Passkey(credential_id, name, now, None, site.rp_id)

    async def rename_passkey(self, player: str, credential_id: str, name: Any) -> Passkey:
        name = checked_passkey_name(name)
        return await self.context.offload(self._change_passkey, player, credential_id, {"name": name})

    def _change_passkey(self, player: str, credential_id: str, changes: dict[str, Any]) -> Passkey:
        kept = self.store.passkey(credential_id)
        passkey = _passkey(credential_id, kept[1]) if kept is not None and kept[0] == player else None
        if kept is None or passkey is None:
            raise Invalid(lazy_gettext("no such passkey"))
        data = {**json.loads(kept[1]), **changes}
        if not self.store.update_passkey(player, credential_id, json.dumps(data)):
            raise Invalid(lazy_gettext("no such passkey"))
        return _passkey(credential_id, json.dumps(data)) or passkey

    async def remove_passkey(self, player: str, credential_id: str) -> None:
        if not await self.context.offload(self.store.drop_passkey, player, credential_id):
            raise Invalid(lazy_gettext("no such passkey"))

    async def sign_in_options(self, client: str, site: Site) -> str:
        """What a browser is asked to sign in with (JSON for navigator.credentials.get): any passkey it keeps for
        this site, the person choosing."""
        return await self.context.offload(self._sign_in_options, client, site)

    def _sign_in_options(self, client: str, site: Site) -> str:
        within_sign_in_limit(self.context, client)
        options = webauthn.generate_authentication_options(
            rp_id=site.rp_id, user_verification=UserVerificationRequirement.PREFERRED, timeout=CEREMONY_SECONDS * 1000
        )
        challenge = bytes_to_base64url(options.challenge)
        self.store.put_token(f"passkey-asked:{challenge}", "sign-in", self.context.clock() + CEREMONY_SECONDS)
        return webauthn.options_to_json(options)

    async def sign_in(self, client: str, site: Site, credential: Any) -> str:
        """The player whose passkey answered sign_in_options; SignInRefused for one that does not check out."""
        return await self.context.offload(self._sign_in, client, site, credential)

    def _sign_in(self, client: str, site: Site, credential: Any) -> str:
        within_sign_in_limit(self.context, client)
        challenge = self._challenge_of(credential)
        if self.store.take_token(f"passkey-asked:{challenge}") is None:
            raise SignInRefused(lazy_gettext("this sign-in was not asked for here, or too long ago: try again"))
        credential_id = credential.get("id") if isinstance(credential, dict) else None
        kept = self.store.passkey(credential_id) if isinstance(credential_id, str) and credential_id else None
        passkey = _passkey(str(credential_id), kept[1]) if kept is not None else None
        # A passkey signs in only where it was made: the authenticator's signature covers the site too.
        if kept is None or passkey is None or passkey.rp_id != site.rp_id:
            raise SignInRefused(lazy_gettext("this passkey belongs to no player here (it may have been removed)"))
        player, data = kept[0], json.loads(kept[1])
        checked = _checked(
            webauthn.verify_authentication_response,
            credential,
            challenge,
            site,
            credential_public_key=base64url_to_bytes(data["public_key"]),
            credential_current_sign_count=data["sign_count"],
        )
        data.update(sign_count=checked.new_sign_count, last_used_at=self.context.clock())
        self.store.update_passkey(player, passkey.credential_id, json.dumps(data))
        return player

    @staticmethod
    def _challenge_of(credential: Any) -> str:
        """The challenge a browser's answer signed (its client data's), as the ceremony's token names it."""
        try:
            client_data = parse_client_data_json(base64url_to_bytes(credential["response"]["clientDataJSON"]))
        except (WebAuthnException, ValueError, TypeError, KeyError) as error:
            raise SignInRefused(lazy_gettext("this passkey could not be checked: %(why)s", why=str(error))) from None
        return bytes_to_base64url(client_data.challenge)

    # ----- link codes ------------------------------------------------------------------------------------------

    async def link_code(self, player: str, client: str) -> LinkCode:
        """A new one-time code that makes another device `player`, for LINK_CODE_SECONDS."""
        return await self.context.offload(self._link_code, player, client)

    def _link_code(self, player: str, client: str) -> LinkCode:
        within_limit(self.context, client)
        until = self.context.clock() + LINK_CODE_SECONDS
        while True:  # a code in use already is as likely as guessing one: 2**-60
            code = "".join(secrets.choice(LINK_CODE_ALPHABET) for _ in range(LINK_CODE_LENGTH))
            if self.store.put_token(f"link:{code}", player, until):
                return LinkCode(code, until)

    async def redeem_link_code(self, client: str, code: Any) -> str:
        """The player a link code was made for, the code used up; SignInRefused for a wrong, used or stale one."""
        return await self.context.offload(self._redeem_link_code, client, code)

    def _redeem_link_code(self, client: str, text: Any) -> str:
        within_sign_in_limit(self.context, client)
        code = read_link_code(text)
        player = self.store.take_token(f"link:{code}") if code is not None else None
        if player is None:
            raise SignInRefused(
                lazy_gettext("this code links no device: it is mistyped, used already, or older than ten minutes")
            )
        return player
