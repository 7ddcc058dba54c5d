"""docs/python.md's ```python blocks run, in order, in one namespace, as a reader would paste them."""
import re

from conftest import SOURCE_DIR

DOC = SOURCE_DIR / "docs" / "python.md"


def python_blocks(markdown):
    return re.findall(r"^```python\n(.*?)^```$", markdown, flags=re.S | re.M)


def test_every_python_block_of_the_guide_runs(tmp_path, monkeypatch):
    blocks = python_blocks(DOC.read_text())
    assert len(blocks) >= 5
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "python_md"}
    for number, block in enumerate(blocks, start=1):
        try:
            exec(compile(block, f"docs/python.md block {number}", "exec"), namespace)
        except Exception as error:  # name the block that failed
            raise AssertionError(f"docs/python.md block {number} failed: {error!r}\n{block}") from error
