"""The study's question, from the seed post: where the bandwidth-optimal ring overtakes the
latency-optimal recursive doubling. The crossover tables, the headline figure, the
workloads and the validation's crossover ratios all ask it of this pair."""

from __future__ import annotations

SEED_PAIR = ("recursive_doubling", "ring")  # (latency-optimal, bandwidth-optimal)
