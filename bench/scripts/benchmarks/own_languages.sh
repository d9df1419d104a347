#!/bin/bash
# Your own languages, end to end: a Swedish and Finnish semantic ranker built only from Debian and PyPI packages.
# English-Swedish and English-Finnish pairs come from the gettext catalogues (.mo) of Debian packages, the
# vocabulary also from wordfreq's word lists (PyPI); multilingual-e5-small is the teacher (USE-multilingual-v3 has
# neither language). Vocabulary -> student (the user's pairs alone, a held-out slice scored after training) ->
# int8 model folder -> translation retrieval on an application the student never saw (GnuCash's catalogue, held
# out of training), teacher beside student -> a small feed in the two languages ranked by one like and one dislike.
# usage: bash bench/scripts/benchmarks/own_languages.sh [WORK_FOLDER]   (needs apt-get, dpkg-deb and the teachers extra)
set -euo pipefail
WORK=${1:-runs/own-languages}
PACKAGES="vlc-l10n util-linux-locales iso-codes coreutils tar grep wget bash gettext-base libc-l10n apt dpkg
  e2fsprogs inkscape libgtk-3-common libglib2.0-data gnome-control-center-data gnucash-common evince-common
  gedit-common nautilus-data gnome-shell-common libgnome-desktop-3-20 gimp-data gimp xfce4-panel thunar-data"
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK/debs" "$WORK/unpacked"
(cd "$WORK/debs" && apt-get download $PACKAGES)
for deb in "$WORK"/debs/*.deb; do dpkg-deb -x "$deb" "$WORK/unpacked"; done
python "$HERE/../data/gettext_pairs.py" "$WORK/unpacked" "$WORK/corpora" sv fi --hold gnucash
C=$WORK/corpora
edge-ranker vocab build --size 20000 --out "$WORK/vocab" --overwrite --corpus en="$C/en.txt" \
  --corpus sv="$C/sv.txt" --corpus sv=wordfreq:sv:20000 --corpus fi="$C/fi.txt" --corpus fi=wordfreq:fi:20000 \
  > "$WORK/vocab.json"
rm -rf "$WORK/cache"  # from an empty teacher cache, as a new user starts
# 128-d and 5 epochs: the semantic recipe's shape when bench/RESULTS.md's figures for this example were measured
/usr/bin/time -f "distill wall %e s" edge-ranker distill semantic --teacher multilingual-e5-small \
  --pca-dim 128 --epochs 5 \
  --vocab "$WORK/vocab" --parallel sv-en="$C/sv-en.tsv" --parallel fi-en="$C/fi-en.tsv" \
  --cache "$WORK/cache" --out "$WORK/student" --overwrite | tee "$WORK/distill.json"
edge-ranker export "$WORK/student" --out "$WORK/model" --overwrite
edge-ranker eval "$WORK/model" teacher:multilingual-e5-small --cache "$WORK/cache" \
  --bitext sv-en="$C/sv-en.held.tsv" --bitext fi-en="$C/fi-en.held.tsv" | tee "$WORK/eval.json"
rm -f "$WORK/prefs.db"
edge-ranker feedback like sv-sport-1 --semantic "$WORK/model" --db "$WORK/prefs.db" \
  --text "Landslaget vann matchen mot Norge med tre mål i andra halvlek."
edge-ranker feedback dislike fi-tech-1 --semantic "$WORK/model" --db "$WORK/prefs.db" \
  --text "Ohjelman uusi versio tallentaa tiedostot nopeammin ja käyttää vähemmän muistia."
edge-ranker rank "$HERE/own_languages_feed.jsonl" --semantic "$WORK/model" --db "$WORK/prefs.db" | tee "$WORK/rank.jsonl"
ls -l "$WORK/model/model.onnx"
