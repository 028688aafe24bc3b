"""`loci serve`'s refusals of --port and --host name what to change.

`loci serve --port 99999` answered "invalid setting LOCI_PORT: …", a variable the person never
set; `--host ""` listened on every interface and printed "http://:8420"; a --host that names
no interface of this machine ("bad host", an address assigned elsewhere) was told to "choose
another port with --port".
"""

from __future__ import annotations

import socket

import pytest
from click.testing import CliRunner

from loci.errors import ConfigurationError
from service.cli import main
from service.serving import bind_listener


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_a_port_out_of_range_is_refused_naming_the_option(port: str) -> None:
    answer = CliRunner().invoke(main, ["serve", "--port", port])
    assert answer.exit_code == 2, answer.output
    assert "Invalid value for '--port'" in answer.stderr and "65535" in answer.stderr
    assert "LOCI_PORT" not in answer.stderr


@pytest.mark.parametrize("host", ["no such host.invalid", "192.0.2.1"])
def test_a_host_that_is_not_here_asks_for_another_address(host: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        bind_listener(host, 0)
    assert str(refused.value).endswith("choose another address with --host or LOCI_HOST"), refused.value


def test_a_port_in_use_still_asks_for_another_port() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(ConfigurationError) as refused:
            bind_listener("127.0.0.1", taken.getsockname()[1])
    assert "Address already in use" in str(refused.value) and str(refused.value).endswith("--port or LOCI_PORT")


@pytest.mark.parametrize("host", ["", "  "])
def test_an_empty_host_is_refused_not_taken_as_every_interface(host: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        bind_listener(host, 0)
    assert "empty address: set --host or LOCI_HOST" in str(refused.value)
