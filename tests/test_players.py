"""Passkeys and link codes in the service (issue 45 #1, #2, "Limits and safety"): each ceremony with a software
authenticator (tests/authenticator.py) as a browser would answer it, and as an attacker would: another site's
signature, another origin, a challenge used twice or too late, a counter that goes back, a passkey of another
site; link codes single use, stale after ten minutes of an injected clock, wrong ones refused within a limit."""

from __future__ import annotations

import asyncio
import json

import pytest

from app.service.devices import (
    CEREMONY_SECONDS,
    LINK_CODE_ALPHABET,
    LINK_CODE_SECONDS,
    PlayerLimited,
    SignInRefused,
    Site,
    read_link_code,
)
from app.service.kept import KEPT
from app.store import MemoryStore
from tests.authenticator import SoftAuthenticator
from tests.clock import FakeClock
from tests.test_daily import service_on

SITE = Site(rp_id="localhost", origin="http://localhost:8000")
ALICE = "aLiCe0000000000000000A"


@pytest.fixture
def clock():
    return FakeClock(1_800_000_000.0)


@pytest.fixture
def service(clock):
    service = service_on(MemoryStore(clock, kept=KEPT), clock)
    yield service
    service.close()


def run(work):
    return asyncio.run(work)


def registered(service, player: str = ALICE, name: str = "Laptop", site: Site = SITE) -> SoftAuthenticator:
    """A passkey made for `player` on `site` through the whole ceremony; its authenticator."""
    authenticator = SoftAuthenticator(site.origin, site.rp_id)
    options = run(service.devices.passkey_options(player, "client", site))
    passkey = run(service.devices.add_passkey(player, "client", site, authenticator.make(options), name))
    assert passkey.name == name and passkey.rp_id == site.rp_id
    return authenticator


def signed_in(service, authenticator: SoftAuthenticator, site: Site = SITE, **how) -> str:
    options = run(service.devices.sign_in_options("client", site))
    return run(service.devices.sign_in("client", site, authenticator.use(options, **how)))


def test_a_passkey_made_for_a_player_signs_in_as_them_and_says_when(service, clock):
    authenticator = registered(service)
    clock.advance(60)
    assert signed_in(service, authenticator) == ALICE
    [passkey] = run(service.devices.passkeys(ALICE))
    assert passkey.last_used_at == clock() and passkey.created_at == clock() - 60
    assert json.loads(service.store.passkey(passkey.credential_id)[1])["sign_count"] == authenticator.counter


@pytest.mark.parametrize(
    "how, why",
    [
        ({"rp_id": "evil.example"}, "could not be checked"),
        ({"origin": "https://evil.example"}, "could not be checked"),
        ({"step": 0}, "could not be checked"),
    ],
    ids=["another-site's-signature", "another-origin", "a-counter-that-does-not-go-on"],
)
def test_a_sign_in_signed_for_another_site_or_origin_or_by_a_clone_is_refused(service, how, why):
    authenticator = registered(service)
    assert signed_in(service, authenticator) == ALICE
    with pytest.raises(SignInRefused, match=why):
        signed_in(service, authenticator, **how)


def test_a_passkey_signs_in_only_for_the_site_it_was_made_for(service):
    authenticator = registered(service)
    elsewhere = Site(rp_id="games.example.org", origin="https://games.example.org")
    authenticator.origin, authenticator.rp_id = elsewhere.origin, elsewhere.rp_id
    with pytest.raises(SignInRefused, match="belongs to no player here"):
        signed_in(service, authenticator, site=elsewhere)


def test_a_ceremony_answers_once_and_not_too_late(service, clock):
    authenticator = registered(service)
    options = run(service.devices.sign_in_options("client", SITE))
    answer = authenticator.use(options)
    assert run(service.devices.sign_in("client", SITE, answer)) == ALICE
    with pytest.raises(SignInRefused, match="not asked for here"):
        run(service.devices.sign_in("client", SITE, authenticator.use(options)))
    options = run(service.devices.sign_in_options("client", SITE))
    clock.advance(CEREMONY_SECONDS + 1)
    with pytest.raises(SignInRefused, match="not asked for here"):
        run(service.devices.sign_in("client", SITE, authenticator.use(options)))
    # A registration asked for by one player is no other's to finish.
    options = run(service.devices.passkey_options(ALICE, "client", SITE))
    with pytest.raises(SignInRefused, match="not asked for here"):
        run(
            service.devices.add_passkey(
                "someone else", "client", SITE, SoftAuthenticator(SITE.origin).make(options), "Mine"
            )
        )


def test_passkeys_are_named_renamed_and_removed_by_their_player_alone(service):
    registered(service, name="Laptop")
    phone = registered(service, name="Phone")
    [laptop, phone_key] = run(service.devices.passkeys(ALICE))
    assert (laptop.name, phone_key.name) == ("Laptop", "Phone")
    assert run(service.devices.rename_passkey(ALICE, laptop.credential_id, "  Work   laptop ")).name == "Work laptop"
    for bad in ("", " ", "x" * 41, "tab\there\u200b"):
        with pytest.raises(Exception, match="1 to 40"):
            run(service.devices.rename_passkey(ALICE, laptop.credential_id, bad))
    with pytest.raises(Exception, match="no such passkey"):
        run(service.devices.remove_passkey("someone else", phone_key.credential_id))
    run(service.devices.remove_passkey(ALICE, phone_key.credential_id))
    with pytest.raises(SignInRefused, match="belongs to no player here"):
        signed_in(service, phone)
    assert [passkey.name for passkey in run(service.devices.passkeys(ALICE))] == ["Work laptop"]


def test_a_link_code_links_once_within_ten_minutes(service, clock):
    code = run(service.devices.link_code(ALICE, "client"))
    assert len(code.code) == 12 and set(code.code) <= set(LINK_CODE_ALPHABET) and code.until == clock() + 600
    assert code.shown.count("-") == 2
    # Typed as a person types it: small letters, spaces, O for 0, I and L for 1.
    typed = code.shown.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    assert read_link_code(typed) == code.code
    assert run(service.devices.redeem_link_code("client", typed)) == ALICE
    with pytest.raises(SignInRefused, match="used already"):
        run(service.devices.redeem_link_code("client", code.code))
    stale = run(service.devices.link_code(ALICE, "client"))
    clock.advance(LINK_CODE_SECONDS + 1)
    with pytest.raises(SignInRefused, match="older than ten minutes"):
        run(service.devices.redeem_link_code("client", stale.code))


def test_wrong_link_codes_are_refused_and_guessing_is_limited_per_address(service):
    code = run(service.devices.link_code(ALICE, "client"))
    limit = service.settings.sign_in_limit
    for guess in ("", "not a code", "0" * 12, *(f"{number:012d}" for number in range(limit - 3))):
        with pytest.raises(SignInRefused):
            run(service.devices.redeem_link_code("guesser", guess))
    # The address is out of tries: even the right code is refused now, and stays usable from elsewhere.
    with pytest.raises(PlayerLimited, match="Too many sign-ins"):
        run(service.devices.redeem_link_code("guesser", code.code))
    assert run(service.devices.redeem_link_code("client", code.code)) == ALICE


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis", "sqlite"])
def test_a_passkey_made_through_one_host_signs_in_through_another(kind, request, tmp_path, clock):
    import uuid

    from app.store import SQLiteStore
    from app.store.redis import RedisStore

    if kind == "redis":
        url, prefix = request.getfixturevalue("redis_url"), f"passkeys-{uuid.uuid4().hex}"
        stores = [RedisStore(url, prefix=prefix, clock=clock, kept=KEPT) for _ in range(2)]
    else:
        stores = [SQLiteStore(tmp_path / "games.sqlite3", clock, kept=KEPT) for _ in range(2)]
    one, other = (service_on(store, clock, path=tmp_path / "games.sqlite3") for store in stores)
    try:
        authenticator = registered(one)
        assert signed_in(other, authenticator) == ALICE
        code = run(other.devices.link_code(ALICE, "client"))
        assert run(one.devices.redeem_link_code("client", code.code)) == ALICE
        with pytest.raises(SignInRefused):
            run(other.devices.redeem_link_code("client", code.code))
    finally:
        one.close()
        other.close()
