"""A chosen subject, settled against the user's existing wings before placement.

`ingest.subjects` picks what one conversation is about; this decides whether that is a
subject the palace already has under another surface form:

1. **kin**: a person known only as "my brother" takes the name the knowledge graph
   holds for the user's brother (a current ``brother`` relation of the user), if any;
2. **same name**: key, compact key or alias (`ingest.place.resolve_wing`, at write time);
3. **similar content**: when no wing goes by the subject's name, the chat's mean
   embedding against each wing's drawers' mean (`ingest.wing_content`): "the bonnie"
   joins the wing a first chat named "a 1974 triumph" by. Tried before the name's
   embedding, and across kinds: a detail or nickname says little by its name; a person's
   wing only by a chat that names them or calls someone "he"/"she" it never names (the
   chat's words and people travel with its embedding, `ingest.wing_content.ChatContent`);
4. **similar name**: otherwise the embedding of the subject's name against the names of
   the user's live wings of the same kind; at ``SubjectRules.merge_similarity`` or above
   (the threshold's reason is on the field) the conversation joins that wing and its
   spelling becomes an alias.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
from sqlalchemy import exists, select
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.extract_offline import USER_ENTITY
from ingest.extraction import EntityMention, ExtractionOutcome, Subject, TurnView
from ingest.keyphrases import document_vector
from ingest.records import MiningDeps
from ingest.subject_centrality import Embed
from ingest.subject_rules import SUBJECT_RULES, SubjectRules
from ingest.subjects import WingSubject, choose_subject, subject_key
from ingest.wing_content import ChatContent, chat_content, content_wing
from loci.models import Drawer, Entity, Relation, Room, Wing

__all__ = [
    "MAX_COMPARED_WINGS",
    "MAX_KNOWN_SUBJECTS",
    "also_embedding",
    "conversation_subject",
    "known_subjects",
    "settle_subject",
    "suggested_subject",
]

log = logging.getLogger("loci.ingest.wings")

MAX_COMPARED_WINGS = 500
"""Name similarity is checked against the most recently created wings only, so one
mining run embeds a bounded batch of short names (cached by the embedder)."""


def reusing(known: Mapping[str, np.ndarray], embed: Embed) -> Embed:
    """``embed``, answering a text it was given already embedded (a drawer's exact content)
    with that vector instead of running the model again.

    Why: the subject's opening credit embeds the chat's first user turn (`add_opening`),
    which mining has just embedded as that turn's drawer: a quarter of the subject stage's
    samples in a profile of the LongMemEval dev ingest. Long texts also stay out of the
    embedder's phrase cache, which is sized for short phrases."""

    def embed_known(texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        fresh = dict(zip(missing, embed(missing), strict=True)) if missing else {}
        return np.stack([known[t] if t in known else fresh[t] for t in texts]) if texts else embed(texts)

    return embed_known


def also_embedding(embed: Embed, extra: Sequence[str]) -> Embed:
    """``embed``, whose first call also embeds ``extra`` (rows not returned): the windows' key
    phrases ride with the subject's first model call into the embedder's phrase cache, where
    their ranking then finds them (`ingest.pipeline._rank_windows`), instead of a call each."""
    pending = list(extra)

    def embed_first(texts: Sequence[str]) -> np.ndarray:
        if not pending or not texts:
            return embed(texts)
        batch = [*texts, *pending]
        pending.clear()
        return embed(batch)[: len(texts)]

    return embed_first


MAX_KNOWN_SUBJECTS = 50
"""Wing names listed to an extractor that names subjects (`known_subjects`): the most recently
created, a few hundred tokens per window at most."""


async def known_subjects(deps: MiningDeps, user_id: int) -> tuple[str, ...]:
    """The names the user's live wings go by, newest first (``MAX_KNOWN_SUBJECTS``), for an
    extractor that reuses one when a chat is about it; not an agent's wing nor the fallback
    "general", which file chats about no subject, nor a wing whose drawers are all in the trash:
    the palace no longer shows its name, so it is not sent to an LLM endpoint either."""
    holds_live = exists().where(
        Room.wing_id == Wing.id, Drawer.room_id == Room.id, Drawer.user_id == user_id, Drawer.deleted_at.is_(None)
    )
    async with deps.db.user_session(user_id) as s:
        rows = await s.execute(
            select(Wing.name)
            .where(Wing.user_id == user_id, Wing.deleted_at.is_(None), Wing.kind != "agent", Wing.name != "general")
            .where(holds_live)
            .order_by(Wing.id.desc())
            .limit(MAX_KNOWN_SUBJECTS)
        )
        return tuple(str(name) for name in rows.scalars())


def suggested_subject(outcomes: Sequence[ExtractionOutcome]) -> WingSubject | None:
    """The subject the LLM extractor read in the conversation's windows: the one most windows
    name (by `subject_key`), the earliest on a tie, as the opening states what a chat is
    about. None when no window was read by the LLM, or it named none or the agent itself
    (whose wing the caller's fallback gives)."""
    named: list[Subject] = [
        o.extraction.subject
        for o in outcomes
        if o.extractor == "llm" and o.extraction.subject is not None and o.extraction.subject.kind != "agent"
    ]
    named = [n for n in named if n.name.strip()]
    if not named:
        return None
    keys = [subject_key(n.name, fold_plural=False) for n in named]
    best = max(range(len(named)), key=lambda i: (keys.count(keys[i]), -i))
    name = " ".join(named[best].name.split())
    return WingSubject(named[best].kind, name, tuple(sorted({name.lower(), keys[best]})))


async def conversation_subject(
    deps: MiningDeps,
    conv: tuple[int, int],
    turns: Sequence[TurnView],
    mentions: Mapping[int, Sequence[EntityMention]],
    vectors: Sequence[np.ndarray | None],
    rules: SubjectRules = SUBJECT_RULES,
    known: Mapping[str, np.ndarray] | None = None,
    suggested: WingSubject | None = None,
    carrying: Sequence[str] = (),
) -> WingSubject | None:
    """The subject of the turns being mined (``conv`` is (user id, conversation id)),
    settled against the user's wings; None when nothing is central enough. ``known``: the
    drawers' contents and vectors mining has just made (`reusing`).

    ``suggested`` (`suggested_subject`: what the LLM extractor read, when one is configured)
    is taken over the rule: a model reading the chat names a subject the user describes
    only by details ("the carb", "the room spins") where counting and closeness cannot
    (`tests/integration/test_wings_held_out.py`). It is settled like the rule's choice.

    ``carrying``: phrases the subject's first model call embeds too (`also_embedding`).

    Embedding is a refinement: should the model fail, the subject is chosen without
    centrality and without the similar-name merge, never failing the run.
    """
    user_id, conversation_id = conv
    document = document_vector(vectors)
    embed = reusing(known or {}, also_embedding(deps.embedder.embed_phrases, carrying))
    subject = suggested
    try:
        if subject is None:
            subject = await asyncio.to_thread(choose_subject, turns, mentions, embed, document, rules)
    except Exception as e:  # the model's failures have many types; see ingest.embed
        log.warning("subject centrality failed, choosing without it: %s: %s", type(e).__name__, e)
        subject = choose_subject(turns, mentions, None, None, rules)
    if subject is None:
        return None
    try:
        chat = chat_content(turns, mentions, document, rules)
        return await settle_subject(deps, user_id, conversation_id, subject, rules, chat)
    except Exception as e:  # as above: a missed merge costs a duplicate wing, not the run
        log.warning("wing name comparison failed, keeping %r: %s: %s", subject.name, type(e).__name__, e)
        return subject


async def settle_subject(
    deps: MiningDeps,
    user_id: int,
    conversation_id: int,
    subject: WingSubject,
    rules: SubjectRules = SUBJECT_RULES,
    chat: ChatContent | None = None,
) -> WingSubject:
    """``subject``, renamed to the existing wing's name when it is the same subject
    (``chat``: the chat's mean drawer embedding and words, for the content step)."""
    async with deps.db.user_session(user_id) as s:
        if await _has_wing(s, conversation_id):
            return subject  # a resumed conversation keeps its wing; nothing to compare
        subject = await _kin_named(s, user_id, subject)
        joined = await content_wing(s, user_id, subject, chat or ChatContent(None), rules, MAX_COMPARED_WINGS)
        if joined is not subject:
            return joined
        wings = (
            await s.execute(
                select(Wing.name, Wing.aliases)
                .where(Wing.user_id == user_id, Wing.kind == subject.kind, Wing.deleted_at.is_(None))
                .order_by(Wing.id.desc())
                .limit(MAX_COMPARED_WINGS)
            )
        ).all()
    names = [str(name) for name, aliases in wings if subject.name.lower() not in aliases]
    if not names or len(names) < len(wings):
        return subject  # no other wing of this kind, or one already goes by this name
    vectors = await asyncio.to_thread(deps.embedder.embed_phrases, [subject.name, *names])
    sims = vectors[1:] @ vectors[0]
    best = int(np.argmax(sims))
    if float(sims[best]) < rules.merge_similarity:
        return subject
    return replace(subject, name=names[best], aliases=(*subject.aliases, subject.name.lower()))


async def _has_wing(s: AsyncSession, conversation_id: int) -> bool:
    return (await s.scalar(select(Room.id).where(Room.conversation_id == conversation_id).limit(1))) is not None


async def _kin_named(s: AsyncSession, user_id: int, subject: WingSubject) -> WingSubject:
    """The name the graph holds for an unnamed kin subject ("My brother"): the object of
    the user's current relation named by the kin word (``brother``), when there is one."""
    if subject.kind != "person" or not subject.name.lower().startswith("my "):
        return subject
    kin = subject.name.lower().removeprefix("my ").strip()
    user = select(Entity.id).where(
        Entity.user_id == user_id, Entity.kind == USER_ENTITY.kind, Entity.name == USER_ENTITY.name
    )
    row = (
        await s.execute(
            select(Relation.object_value, Entity.name)
            .outerjoin(Entity, Entity.id == Relation.object_entity_id)
            .where(
                Relation.user_id == user_id,
                Relation.subject_id.in_(user),
                Relation.predicate == kin,
                Relation.valid_to.is_(None),
            )
            .limit(1)
        )
    ).first()
    person = (row[1] or row[0]) if row is not None else None
    if not person:
        return subject
    return replace(subject, name=str(person), aliases=(*subject.aliases, subject.name.lower()))
