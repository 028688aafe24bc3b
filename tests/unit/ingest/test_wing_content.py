"""When a chat's subject already names a wing (`ingest.wing_content.named_by`): only then
is the content step skipped, so it never overrides a name."""

from __future__ import annotations

from ingest.subject_candidates import WingSubject
from ingest.wing_content import named_by


def test_a_subject_names_a_wing_by_slug_compact_key_or_alias() -> None:
    assert named_by(WingSubject("topic", "E-foil"), "efoil", ())
    assert named_by(WingSubject("person", "My mum", ("my mum",)), "helen", ("helen", "my mum"))
    assert named_by(WingSubject("topic", "Tinnitus"), "ear", ("ear", "tinnitus"))


def test_a_detail_or_nickname_names_no_wing() -> None:
    assert not named_by(WingSubject("topic", "Bonnie", ("bonnie",)), "bike", ("bike", "motorbike"))
    assert not named_by(WingSubject("topic", "Wallbox", ("wallbox",)), "car", ("car", "cars"))
