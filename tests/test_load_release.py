"""Reading release files: JSONL, per-task JSON folders, parquet, Hugging Face ids."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.prepare import load_tasks, validate
from sgr_kit.load.release import decode_object, looks_like_dataset_id, read_sources



def task(task_id: str, *, domain: str = "NVD", answer: str = "cve_id|score\nCVE-1|9.8\nCVE-2|7.5", **extra) -> dict:
    return {"task_id": task_id, "domain": domain, "oracle_answer": answer, "output_format": "cve_id|score", **extra}


def write_jsonl(path: Path, records: list, *, raw_lines: dict[int, str] | None = None) -> Path:
    lines = [json.dumps(r) for r in records]
    for index, text in (raw_lines or {}).items():
        lines.insert(index, text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def fixture_records(folder: Path) -> list[dict]:
    return [json.loads(ln) for name in ("constraint.jsonl", "goal.jsonl") for ln in (folder / name).open()]


def without_source(tasks) -> dict:
    return {tid: dataclasses.replace(t, source="") for tid, t in tasks.items()}


def test_jsonl_with_blank_lines_gives_file_line_sources(tmp_path):
    path = write_jsonl(tmp_path / "constraint.jsonl", [task("nvd_001"), task("nvd_002")], raw_lines={1: "   "})
    tasks = load_tasks(path)
    assert list(tasks) == ["nvd_001", "nvd_002"]
    assert tasks["nvd_002"].source == f"{path}:3"


def test_bad_json_line_names_file_and_line(tmp_path):
    records = [task(f"nvd_00{i}") for i in range(1, 7)]
    path = write_jsonl(tmp_path / "constraint.jsonl", records, raw_lines={6: "{not json"})
    with pytest.raises(SgrKitError, match=r"constraint\.jsonl:7: not valid JSON \("):
        load_tasks(path)


def test_missing_required_key_names_file_line_and_key(tmp_path):
    bad = task("nvd_002")
    del bad["oracle_answer"]
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001"), bad])
    with pytest.raises(SgrKitError, match=r"t\.jsonl:2: required key 'oracle_answer' is missing"):
        load_tasks(path)


def test_record_must_be_an_object(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [[1, 2]])
    with pytest.raises(SgrKitError, match=r"t\.jsonl:1: expected a JSON object .*found list"):
        load_tasks(path)


def test_metadata_and_rubric_as_json_strings_are_decoded(tmp_path):
    rubric = {"columns": ["cve_id", "score"], "fields": {"score": {"type": "decimal"}}}
    rec = task("nvd_001", metadata=json.dumps({"synthetic": True}), rubric=json.dumps(rubric))
    tasks = load_tasks(write_jsonl(tmp_path / "constraint_hf.jsonl", [rec]))
    t = tasks["nvd_001"]
    assert t.rubric["columns"] == ["cve_id", "score"] and t.synthetic
    assert t.schema.rule("score").type == "decimal"


def test_rubric_string_that_is_not_json_names_file_line_and_key(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [task("nvd_001", rubric="{columns: [a]")])
    with pytest.raises(SgrKitError, match=r"t\.jsonl:1: task nvd_001: key 'rubric' \(a JSON-encoded string\): not valid JSON"):
        load_tasks(path)


def test_rubric_of_the_wrong_type(tmp_path):
    with pytest.raises(SgrKitError, match=r"x:1: task t: key 'metadata' should be an object; found list"):
        decode_object([1], key="metadata", loc="x:1: task t")


def test_per_task_json_folder_prefers_data_en(tmp_path):
    for lang in ("data_en", "data_zh"):
        for tid in ("nvd_001", "nvd_001-g"):
            folder = tmp_path / lang / ("goal" if tid.endswith("-g") else "constraint")
            folder.mkdir(parents=True, exist_ok=True)
            answer = "cve_id|score\nCVE-1|9.8\nCVE-2|7.5" if lang == "data_en" else "cve_id|score\nCVE-9|1.0"
            (folder / f"{tid}.json").write_text(json.dumps(task(tid, answer=answer)), encoding="utf-8")
    tasks = load_tasks(tmp_path)
    assert list(tasks) == ["nvd_001", "nvd_001-g"]
    assert tasks["nvd_001"].gold_rows == 2
    assert tasks["nvd_001-g"].source == str(tmp_path / "data_en" / "goal" / "nvd_001-g.json")
    assert any("data_zh: skipped" in note for note in tasks.notes)


def test_json_file_with_a_list_and_file_without_task_id(tmp_path):
    (tmp_path / "many.json").write_text(json.dumps([task("nvd_001"), task("nvd_002")]), encoding="utf-8")
    unnamed = task("ignored")
    del unnamed["task_id"]
    (tmp_path / "nvd_003.json").write_text(json.dumps(unnamed), encoding="utf-8")
    tasks = load_tasks(tmp_path)
    assert sorted(tasks) == ["nvd_001", "nvd_002", "nvd_003"]
    assert tasks["nvd_002"].source == f"{tmp_path / 'many.json'}[1]"


def test_invalid_json_file_names_the_line(tmp_path):
    (tmp_path / "nvd_001.json").write_text('{\n  "task_id": "nvd_001",\n  oops\n}', encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"nvd_001\.json:3: not valid JSON"):
        load_tasks(tmp_path / "nvd_001.json")


def test_hf_copy_identical_after_decoding_is_collapsed_with_a_note(tmp_path):
    rec = task("nvd_001", rubric={"columns": ["cve_id", "score"]}, metadata={"k": 1})
    write_jsonl(tmp_path / "constraint.jsonl", [rec])
    hf = dict(rec, rubric=json.dumps(rec["rubric"]), metadata=json.dumps(rec["metadata"]), all_involved_urls=["u"])
    write_jsonl(tmp_path / "constraint_hf.jsonl", [hf])
    tasks = load_tasks(tmp_path)
    assert list(tasks) == ["nvd_001"] and tasks.warnings == ()
    assert any("repeat identical records" in note for note in tasks.notes)


def test_hf_copy_that_differs_is_an_error_naming_both(tmp_path):
    write_jsonl(tmp_path / "constraint.jsonl", [task("nvd_001")])
    write_jsonl(tmp_path / "constraint_hf.jsonl", [task("nvd_001", answer="cve_id|score\nCVE-1|1.0")])
    with pytest.raises(SgrKitError, match=r"task nvd_001 appears twice with different content: .*constraint\.jsonl:1 "
                                          r"and .*constraint_hf\.jsonl:1 \(differing: oracle_answer\)"):
        load_tasks(tmp_path)


def test_identical_task_in_two_sources_warns(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", [task("nvd_001")])
    b = write_jsonl(tmp_path / "b.jsonl", [task("nvd_001")])
    with pytest.warns(UserWarning, match=r"1 task\(s\) in .*b\.jsonl repeat identical records of .*a\.jsonl"):
        tasks = load_tasks(a, b)
    assert len(tasks) == 1 and tasks["nvd_001"].source == f"{a}:1"


def test_folder_skips_files_that_are_not_tasks(tmp_path):
    write_jsonl(tmp_path / "constraint.jsonl", [task("nvd_001")])
    write_jsonl(tmp_path / "runs.jsonl", [{"system": "s", "task_id": "nvd_001", "answer": "x"}])
    (tmp_path / "README.md").write_text("# tasks\n", encoding="utf-8")
    tasks = load_tasks(tmp_path)
    assert list(tasks) == ["nvd_001"]
    assert any("runs.jsonl: skipped" in note for note in tasks.notes)


def test_nonexistent_path_unsupported_suffix_and_empty_folder(tmp_path):
    with pytest.raises(SgrKitError, match=r"task source .*nope\.jsonl: no such file or folder"):
        load_tasks(tmp_path / "nope.jsonl")
    (tmp_path / "tasks.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"tasks\.csv: expected a \.jsonl, \.json or \.parquet file; found '\.csv'"):
        load_tasks(tmp_path / "tasks.csv")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SgrKitError, match=r"empty: no \.jsonl, \.json or \.parquet file in this folder"):
        load_tasks(tmp_path / "empty")
    with pytest.raises(SgrKitError, match=r"no task source given"):
        read_sources([])


def test_non_utf8_file_is_an_error(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"task_id": "\xff"}\n')
    with pytest.raises(SgrKitError, match=r"t\.jsonl:1: not UTF-8 text"):
        load_tasks(path)


def test_dataset_id_detection(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert looks_like_dataset_id("PKUAIWeb/SGR-BENCH")
    assert not looks_like_dataset_id("data/goal.jsonl")
    assert not looks_like_dataset_id("a/b/c")
    (tmp_path / "owner").mkdir()
    (tmp_path / "owner" / "name").mkdir()
    assert not looks_like_dataset_id("owner/name")  # an existing path wins


def test_hub_id_offline_is_a_quick_clear_error(tmp_path, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"), raising=False)
    monkeypatch.chdir(tmp_path)
    start = time.monotonic()
    with pytest.raises(SgrKitError, match=r"Hugging Face dataset 'PKUAIWeb/SGR-BENCH' could not be reached "
                                          r"\(offline mode .*--tasks constraint\.jsonl --tasks goal\.jsonl"):
        load_tasks("PKUAIWeb/SGR-BENCH")
    assert time.monotonic() - start < 30


def test_hub_id_online_reads_the_downloaded_folder(tmp_path, monkeypatch):
    import huggingface_hub

    snapshot = tmp_path / "snapshot"
    write_jsonl(snapshot / "constraint.jsonl", [task("nvd_001")])
    write_jsonl(snapshot / "goal.jsonl", [task("nvd_001-g")])
    calls = []
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setattr(
        huggingface_hub.HfApi, "dataset_info", lambda self, repo_id, timeout=None: calls.append(timeout)
    )
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda repo_id, **kw: calls.append(kw) or str(snapshot))
    monkeypatch.chdir(tmp_path)
    tasks = load_tasks("PKUAIWeb/SGR-BENCH")
    assert tasks.pairs == (("nvd_001", "nvd_001-g"),)
    assert calls[0] == 10 and calls[1]["repo_type"] == "dataset"
    assert any("Hugging Face dataset PKUAIWeb/SGR-BENCH read from" in n for n in tasks.notes)


def test_hub_failure_online_says_how_to_use_local_files(tmp_path, monkeypatch):
    import huggingface_hub

    def unreachable(self, repo_id, timeout=None):
        raise ConnectionError("Name or service not known")

    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", unreachable)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SgrKitError, match=r"could not be reached \(ConnectionError: Name or service not known\); "
                                          r"download the dataset's files"):
        load_tasks("someone/some-dataset")


def test_parquet_with_nested_objects_drops_struct_padding(tmp_path):
    records = [
        task("nvd_001", rubric={"columns": ["cve_id", "score"], "row_key": ["cve_id"]}),
        task("nvd_002", rubric={"columns": ["cve_id", "score"], "fields": {"score": {"type": "decimal"}}}),
    ]
    pq.write_table(pa.Table.from_pylist(records), tmp_path / "tasks.parquet")
    tasks = load_tasks(tmp_path / "tasks.parquet")
    assert dict(tasks["nvd_001"].rubric) == records[0]["rubric"]
    assert dict(tasks["nvd_002"].rubric) == records[1]["rubric"]
    assert tasks["nvd_002"].source == f"{tmp_path / 'tasks.parquet'}:2"


def test_unreadable_parquet(tmp_path):
    (tmp_path / "t.parquet").write_bytes(b"not parquet")
    with pytest.raises(SgrKitError, match=r"t\.parquet: not a readable parquet file"):
        load_tasks(tmp_path / "t.parquet")


def test_fixtures_round_trip_through_per_task_json_and_parquet(release_dir, tmp_path):
    reference = load_tasks(release_dir / "constraint.jsonl", release_dir / "goal.jsonl")
    records = fixture_records(release_dir)
    folder = tmp_path / "release"
    for rec in records:
        sub = folder / "data_en" / ("goal" if rec["task_id"].endswith("-g") else "constraint")
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"{rec['task_id']}.json").write_text(json.dumps(rec, indent=2), encoding="utf-8")
    # the release's *_hf form: metadata and rubric as JSON strings (empty unit objects
    # cannot be parquet structs)
    flat = [dict(r, metadata=json.dumps(r["metadata"]), rubric=json.dumps(r["rubric"])) for r in records]
    pq.write_table(pa.Table.from_pylist(flat), tmp_path / "tasks.parquet")
    from_json = load_tasks(folder)
    from_parquet = load_tasks(tmp_path / "tasks.parquet")
    assert list(from_json) == list(from_parquet) == list(reference)
    assert without_source(from_json) == without_source(reference)
    assert without_source(from_parquet) == without_source(reference)
    assert from_json.decisions == from_parquet.decisions == reference.decisions


def test_validate_reads_the_fixture_folder_cleanly(release_dir):
    report = validate(release_dir)
    assert report.ok and not (report.frame()["severity"] == "warning").any()


# --- the public release as it is: its file set, its two languages, the Hub cache offline

_REV = "0123456789abcdef0123456789abcdef01234567"


def _zh(record: dict) -> dict:
    # data_zh/: same id and identical oracle_answer; instruction and output_format translated
    return {**record, "instruction": "中文：" + record["instruction"], "output_format": "格式：" + record["output_format"]}


def _release_tree(root: Path, original: Path) -> Path:
    """The release's file set built from the real released tasks (README of the fixtures)."""
    records = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(original.glob("*.json"))}
    for variant, ids in (("constraint", [i for i in records if not i.endswith("-g")]),
                         ("goal", [i for i in records if i.endswith("-g")])):
        write_jsonl(root / f"{variant}.jsonl", [records[i] for i in ids])
        hf = [{**records[i], "metadata": json.dumps(records[i]["metadata"]), "rubric": json.dumps(records[i]["rubric"]),
               "all_involved_urls": json.dumps([records[i]["start_url"]])} for i in ids]
        write_jsonl(root / f"{variant}_hf.jsonl", hf)
        for lang, make in (("data_en", dict), ("data_zh", _zh)):
            folder = root / lang / variant
            folder.mkdir(parents=True, exist_ok=True)
            for i in ids:
                (folder / f"{i}.json").write_text(json.dumps(make(records[i]), ensure_ascii=False), encoding="utf-8")
    return root


def _hub_cache(tmp_path: Path, original: Path) -> Path:
    """A cache laid out as huggingface_hub lays it out: datasets--owner--name/{refs/main, snapshots/<rev>/...}."""
    cache = tmp_path / "hub"
    storage = cache / "datasets--PKUAIWeb--SGR-BENCH"
    _release_tree(storage / "snapshots" / _REV, original)
    (storage / "refs").mkdir(parents=True)
    (storage / "refs" / "main").write_text(_REV, encoding="utf-8")
    return cache


def test_hub_dataset_offline_from_the_local_cache_reads_the_release_file_set(original_dir, tmp_path, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(_hub_cache(tmp_path, original_dir)))
    monkeypatch.chdir(tmp_path)
    tasks = load_tasks("PKUAIWeb/SGR-BENCH")
    # constraint.jsonl, constraint_hf.jsonl (JSON-string metadata/rubric) and data_en/ are copies of one task each
    assert list(tasks) == ["comptox_012", "comptox_012-g", "waterquality_004", "waterquality_004-g"]
    assert tasks.pairs == (("comptox_012", "comptox_012-g"), ("waterquality_004", "waterquality_004-g"))
    assert {t.language for t in tasks.values()} == {"en"}
    assert any(f"snapshots/{_REV}" in n for n in tasks.notes)
    assert any("data_zh: skipped" in n for n in tasks.notes)
    assert tasks["comptox_012"].schema.row_key == ("generalPUCID", "familyPUCID", "typePUCID", "side")
    # the same tasks as read from the released per-task files themselves
    direct = load_tasks(original_dir)
    assert {k: (t.reference, t.schema.columns) for k, t in tasks.items()} == {
        k: (t.reference, t.schema.columns) for k, t in direct.items()}

    chinese = load_tasks("PKUAIWeb/SGR-BENCH", language="zh")
    assert list(chinese) == list(tasks) and {t.language for t in chinese.values()} == {"zh"}
    assert chinese["comptox_012"].instruction.startswith("中文：")
    assert chinese["comptox_012"].reference == tasks["comptox_012"].reference


def test_hub_dataset_offline_without_the_cache_is_a_clear_error(tmp_path, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SgrKitError, match=r"offline mode \(HF_HUB_OFFLINE\) and the dataset is not in the local cache"):
        load_tasks("PKUAIWeb/SGR-BENCH", language="zh")


def test_release_folder_reads_either_language_never_both(original_dir, tmp_path):
    root = _release_tree(tmp_path / "SGR-BENCH", original_dir)
    english = load_tasks(root)
    chinese = load_tasks(root, language="zh")
    assert list(english) == list(chinese)
    assert [t.language for t in chinese.values()] == ["zh"] * 4
    assert all("data_zh" in t.source for t in chinese.values())
    # a path below data_zh is Chinese whatever is asked
    assert {t.language for t in load_tasks(root / "data_zh").values()} == {"zh"}
    with pytest.raises(SgrKitError, match=r"tasks in en and zh were given together .* share task ids"):
        load_tasks(root / "data_en", root / "data_zh")
    with pytest.raises(SgrKitError, match=r"--language zh asks for the Chinese tasks, but there is no data_zh folder"):
        load_tasks(root / "data_en", language="zh")
    with pytest.raises(SgrKitError, match=r"language must be one of en, zh; found 'fr'"):
        load_tasks(root, language="fr")


def test_a_missing_local_looking_path_is_said_before_any_hub_lookup(tmp_path, monkeypatch):
    import sgr_kit.load.release as release

    monkeypatch.chdir(tmp_path)
    (tmp_path / "my" / "tasks").mkdir(parents=True)
    monkeypatch.setattr(release, "_download", lambda *a, **k: pytest.fail("the Hub was asked for a local path"))
    with pytest.raises(SgrKitError, match=r"task source my/taks: no such file or folder \(closest in my: my/tasks\); "
                                          r"the folder my exists here, so this is read as a local path, not as a "
                                          r"Hugging Face dataset id"):
        load_tasks("my/taks")
