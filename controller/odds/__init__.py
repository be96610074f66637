"""Par sheets: the exact probability of every pay line of a wager, and its house edge.

Every figure is computed by exact enumeration over a finite shoe dealt without replacement,
in `fractions.Fraction` arithmetic (never by simulation): cards the pay table cannot tell
apart are counted together as compositions, each distinct composition classified once and
weighted by the number of physical card sequences that produce it.
"""
