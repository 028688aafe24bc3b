"""How well the offline memory extractor finds what people state about themselves
(`python -m bench.memory_extraction`): precision, recall and F1 against a hand-labelled
fixture of chat turns, overall and per kind (slot facts, preferences, corrections), and
how many must-be-empty turns stay empty."""
