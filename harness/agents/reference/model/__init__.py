"""The reference agent's models: pure functions and plain records for memory, beliefs, trust,
conversation, plans, life (needs, mood, emotion, skill) and autonomy."""
