"""Does the loop help? Questions files (questions), fact matching on core.domain.figures (facts), the scores of
a run and their report (scores), and the three answering strategies on the same engine and corpus (strategies)."""
