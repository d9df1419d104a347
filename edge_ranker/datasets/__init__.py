"""The data sets under a data root and every train/dev/test rule: the one owner of which text is evaluated and
which may be trained on. ``distill`` and ``evaluate`` both read through here and never through each other."""
