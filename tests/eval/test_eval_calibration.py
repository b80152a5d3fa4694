"""Every committed calibration is re-derived from the committed data and the committed scores (same figures,
same hashes, on any CPU), and ``aya-lab eval run faithfulness --write-calibration DIR`` writes the files and
the scores whole or refuses in one line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from aya_lab.agents.calibration import (
    THRESHOLDS_FILE,
    ThresholdsCalibration,
    TranslatorCalibration,
    calibration_dir,
    load_thresholds,
    translator_path,
    translator_record,
)
from aya_lab.agents.faithfulness import faithfulness_scores
from aya_lab.cli import main
from aya_lab.errors import InputError
from aya_lab.eval.calibration import (
    FLOOR_QUANTILES,
    calibrate_floor,
    calibration_runs,
    choose_floor_quantile,
    floor_table,
    recorded_scores,
    translator_calibration,
    write_calibration,
)
from aya_lab.eval.configs import FaithfulnessConfig
from aya_lab.eval.fabrications import default_labels_path
from aya_lab.eval.labelled_drafts import default_messages_path, labelled_runs, load_labelled_runs, load_real_drafts
from aya_lab.paths import project_root
from aya_lab.rag.sentence_encoder import ENCODER_NAME
from aya_lab.settings import DEFAULT_ROLE_SPECS
from tests.eval.conftest import write_faithfulness_pairs

CHANGES = {"date"}  # what a re-derivation may change: the day it ran


def _same(committed, derived) -> None:
    assert committed.model_dump(exclude=CHANGES) == derived.model_dump(exclude=CHANGES)


def _committed_files() -> list[tuple[str, str]]:
    records = [load_thresholds(), *(translator_record(json.loads(p.read_text())["model"]) for p in _translators())]
    agreements = [r.agreement for r in records if getattr(r, "agreement", None) is not None]
    return [(f.path, f.sha256) for r in [*records, *agreements] for f in r.data]


def _translators():
    return sorted(calibration_dir().glob("translator-*.json"))


def test_every_committed_calibration_names_data_that_is_still_there_unchanged():
    files = _committed_files()
    assert files and _translators()
    for path, sha in files:
        assert hashlib.sha256((project_root() / path).read_bytes()).hexdigest() == sha, path


@pytest.mark.parametrize("spec", [json.loads(p.read_text())["model"] for p in _translators()])
def test_every_translators_record_is_rederived_from_its_committed_labels(spec):
    """Reads the recorded scores of each record's labelled drafts (the default translator's: six runs) and chooses
    the floor's quantile again."""
    committed = translator_record(spec)
    assert committed is not None and committed.partial_target is not None
    paths = [project_root() / f.path for f in committed.data]
    runs = list(zip(paths[::2], paths[1::2], strict=True))
    drafts = load_labelled_runs(runs, committed.skip_directions)
    recorded = recorded_scores()
    assert recorded is not None
    pairs = [(d.source.strip(), d.draft.strip()) for d in drafts]
    assert len(recorded.get_similarities(ENCODER_NAME, pairs)) == len(drafts)  # every score is the recording's
    scores = faithfulness_scores([d.source for d in drafts], [d.draft for d in drafts], recorded)
    choice = choose_floor_quantile(drafts, scores, target=committed.partial_target, min_faithful=committed.min_faithful)
    floor = calibrate_floor(drafts, scores, choice.quantile, committed.min_faithful, model=committed.model)
    derived = translator_calibration(
        drafts,
        scores,
        floor,
        paths,
        committed.fingerprint,
        choice=choice,
        skip_directions=committed.skip_directions,
        agreement=committed.agreement,
    )  # fmt: skip (its own test re-derives it)
    _same(committed, derived)
    assert derived.partial_unmarked is not None  # the aim is met, or no quantile tried reaches it (the highest)
    assert derived.partial_unmarked <= committed.partial_target or derived.quantile == FLOOR_QUANTILES[-1]


def test_the_recorded_scores_are_this_encoders_own_to_the_third_decimal():
    """The encoder scores live on this CPU; the file was written on another (an AMD EPYC): they agree up to the
    kernels' rounding (0.002 measured on an Intel Xeon), so the recorded scores are still this encoder's."""
    committed = translator_record(DEFAULT_ROLE_SPECS["translator"])
    assert committed is not None
    drafts = load_real_drafts(project_root() / committed.data[0].path, project_root() / committed.data[1].path)[:40]
    recorded = recorded_scores()
    assert recorded is not None
    live = faithfulness_scores([d.source for d in drafts], [d.draft for d in drafts], _no_cache(recorded))
    kept = faithfulness_scores([d.source for d in drafts], [d.draft for d in drafts], recorded)
    assert len(drafts) == 40 and float(abs(live - kept).max()) < 0.005


def _no_cache(recorded):
    """A cache that knows no score (the recorded file's path, off): every score is computed."""
    from aya_lab.models.cache import GenerationCache

    return GenerationCache(recorded.path, mode="off")


def test_without_runs_the_command_measures_the_runs_of_the_committed_record_again():
    committed = translator_record("gemma3-270m")
    assert committed is not None
    runs, skip = calibration_runs(FaithfulnessConfig(), "gemma3-270m")
    assert [str(p.relative_to(project_root())) for run in runs for p in run] == [f.path for f in committed.data]
    assert skip == committed.skip_directions == ["swh-eng"] and len(runs) == 6
    given = FaithfulnessConfig(real_messages="m.jsonl", real_labels="l.jsonl", skip_directions=["sw-en"])
    assert calibration_runs(given, "gemma3-270m") == ([(Path("m.jsonl"), Path("l.jsonl"))], ["swh-eng"])
    assert calibration_runs(FaithfulnessConfig(), "hf:someone/else")[0] == [
        (default_messages_path(), default_labels_path())
    ]


def test_runs_given_pairwise_and_directions_are_checked_in_one_line():
    with pytest.raises(InputError, match=r"^2 --real-messages and 1 --real-labels; pass one labels file per messages"):
        labelled_runs(["a.jsonl", "b.jsonl"], "l.jsonl")
    with pytest.raises(ValidationError, match="'sweng' is no direction; write SRC-TGT, e.g. swh-eng"):
        FaithfulnessConfig(skip_directions=["sweng"])
    unseen, labels = default_messages_path(), default_labels_path()
    with pytest.raises(InputError, match="message 'un-01-eng' is labelled in .* too; pass each run once"):
        load_labelled_runs([(unseen, labels), (unseen, labels)])


@pytest.mark.parametrize(
    ("option", "error"),
    [
        (["--partial-target", "0"], "error: faithfulness option partial_target=0.0: Input should be greater than 0"),
        (["--skip-directions", "qqq-eng"], "error: faithfulness option skip_directions=['qqq-eng']: Value error, "
         "unsupported language 'qqq'; use an ISO code or name from `aya-lab data languages`"),
        (["--real-messages", "a.jsonl", "--real-messages", "b.jsonl", "--real-labels", "c.jsonl"],
         "error: 2 --real-messages and 1 --real-labels; pass one labels file per messages file, in order"),
        (["--agreement-drafts", "data/adversarial/drafts3_dev.jsonl"],
         "error: --agreement-drafts needs --agreement-labels: the labels of its first drafts"),
        (["--agreement-drafts", "no-drafts.jsonl", "--agreement-labels", "data/adversarial/unseen7_labels.jsonl"],
         "error: no-drafts.jsonl: no such drafts file; pass --agreement-drafts a JSONL file (id, src, text, drafts)"),
        (["--agreement-drafts", "data/adversarial/drafts3_dev.jsonl", "--agreement-labels",
          "data/adversarial/unseen_labels.jsonl"],
         "error: data/adversarial/drafts3_dev.jsonl: no first draft has a label in data/adversarial/unseen_labels.jsonl; "
         "label them (reader_lang eng) first"),
    ],
)  # fmt: skip
def test_a_bad_calibration_option_is_one_line_and_writes_nothing(tmp_path, capsys, option, error):
    out = tmp_path / "cal"
    assert main(["eval", "run", "faithfulness", "--write-calibration", str(out), *option]) == 2
    assert capsys.readouterr().err.strip() == error and not out.exists()


def test_the_command_writes_both_files_and_they_load(tmp_path, capsys):
    out = tmp_path / "cal"
    unseen, labels = default_messages_path(), default_labels_path()
    assert main(["eval", "run", "faithfulness", "--data", str(write_faithfulness_pairs(tmp_path)), "--n-bootstrap",
                 "0", "--write-calibration", str(out), "--real-messages", str(unseen), "--real-labels", str(labels),
                 "--partial-target", "0.2"]) == 0  # fmt: skip
    text = " ".join(capsys.readouterr().out.split())
    assert f"wrote {out / THRESHOLDS_FILE}, {translator_path('gemma3-270m', out)}" in text
    written = ThresholdsCalibration.model_validate_json((out / THRESHOLDS_FILE).read_text(encoding="utf-8"))
    assert set(written.thresholds) == {"eng", "fra"} and written.holdout.pairs == 12
    assert written.data[0].sha256 == hashlib.sha256((tmp_path / "pairs.jsonl").read_bytes()).hexdigest()
    record = TranslatorCalibration.model_validate_json(translator_path("gemma3-270m", out).read_text(encoding="utf-8"))
    assert (
        "--real-messages data/adversarial/unseen.jsonl --real-labels data/adversarial/unseen_labels.jsonl "
        "--partial-target 0.2 --agreement-drafts data/adversarial/drafts3_dev.jsonl --agreement-labels "
        "data/adversarial/unseen7_labels.jsonl,data/adversarial/unseen8_labels.jsonl,"
        "data/adversarial/drafts3_dev_labels.jsonl --agreement-prompt user_translate/baseline" in record.command
    )  # the agreement from the drafts the committed record names, under this run's floor
    assert record.agreement is not None and record.agreement.drafts == 164
    assert [f.path for f in record.data] == ["data/adversarial/unseen.jsonl", "data/adversarial/unseen_labels.jsonl"]
    assert (record.drafts, record.partial_target, record.unsupported) == (166, 0.2, ["swh", "yor"])
    assert record.partial_unmarked is not None and (record.partial_unmarked <= 0.2 or record.quantile == 0.5)
    drafts = load_real_drafts(unseen, labels)
    scores = faithfulness_scores([d.source for d in drafts], [d.draft for d in drafts])
    floor = calibrate_floor(drafts, scores, record.quantile)

    def shares(thresholds):
        table = floor_table(drafts, scores, floor, thresholds).set_index("label")
        return {label: (round(r["withheld"], 4), round(r["flagged"], 4)) for label, r in table.iterrows()}

    measured = {label: (r.withheld, r.flagged) for label, r in record.measured.items()}
    assert measured == shares(written.thresholds) != shares(None)  # this run's thresholds, not the committed ones
    kept = recorded_scores(out)  # the scores measured on, written beside the records, in rollback-journal mode
    assert kept is not None and not (out / "scores.sqlite-wal").exists()
    pairs = [(d.source.strip(), d.draft.strip()) for d in drafts]
    assert list(kept.get_similarities(ENCODER_NAME, pairs).values()) == pytest.approx(scores.tolist(), abs=0)


def test_the_command_reads_the_scores_recorded_in_the_folder_back(tmp_path, capsys):
    """A score already in the folder's scores file is used as it is, not computed again: set to 1.0 for every
    draft, the floor (a quantile of the faithful drafts' scores) comes out 1.0."""
    out = tmp_path / "cal"
    unseen, labels = default_messages_path(), default_labels_path()
    drafts = load_real_drafts(unseen, labels)
    from aya_lab.models.cache import GenerationCache

    seeded = GenerationCache(out / "scores.sqlite", mode="readwrite")
    seeded.put_similarities(ENCODER_NAME, [(d.source.strip(), d.draft.strip()) for d in drafts], [1.0] * len(drafts))
    seeded.close()
    assert main(["eval", "run", "faithfulness", "--data", str(write_faithfulness_pairs(tmp_path)), "--n-bootstrap",
                 "0", "--write-calibration", str(out), "--real-messages", str(unseen), "--real-labels", str(labels)]) == 0  # fmt: skip
    capsys.readouterr()
    record = TranslatorCalibration.model_validate_json(translator_path("gemma3-270m", out).read_text(encoding="utf-8"))
    assert record.floor == 1.0
    assert not list(out.glob(".*.tmp"))


def test_a_bad_folder_or_missing_external_sets_are_one_line_and_nothing_is_written(tmp_path, capsys, monkeypatch):
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    assert main(["eval", "run", "faithfulness", "--write-calibration", str(afile)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: --write-calibration {str(afile)!r} is a file; pass a folder, e.g. data/calibration"
    monkeypatch.setenv("AYA_LAB_DATA_DIR", str(tmp_path / "nothing-here"))
    data = write_faithfulness_pairs(tmp_path)
    ref = {"id": "r", "split": "holdout", "kind": "faithful", "label": "faithful", "src": "eng", "tgt": "swh"}
    ref |= {"source": {"ref": "mafand/dev/eng-swh", "line": 3}, "output": "Habari."}
    data.write_text(data.read_text(encoding="utf-8") + json.dumps(ref) + "\n", encoding="utf-8")
    out = tmp_path / "cal"
    assert (
        main(
            ["eval", "run", "faithfulness", "--data", str(data), "--n-bootstrap", "0", "--write-calibration", str(out)]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert "pairs of mafand are missing here; set AYA_LAB_DATA_DIR before writing a calibration" in err
    assert "\n" not in err and not out.exists()


def test_a_write_that_fails_leaves_the_old_file_whole(tmp_path, monkeypatch):
    record = load_thresholds()
    path = write_calibration(record, tmp_path)
    before = path.read_bytes()
    monkeypatch.setattr(
        "aya_lab.eval.calibration.os.replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space"))
    )
    with pytest.raises(Exception, match="cannot be written"):
        write_calibration(record.model_copy(update={"min_honest": 11}), tmp_path)
    assert path.read_bytes() == before and not list(tmp_path.glob(".*.tmp"))
