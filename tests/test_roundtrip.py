"""encode(decode(x)) == x for every LLVM section of every corpus file, whatever codec claims it."""
import pytest

from objllvm.sections import registry
from objllvm.formats import iter_objects
from objllvm.errors import ObjllvmError

from conftest import TESTDATA, corpus_files

FILES = corpus_files()


def _sections():
    for path in FILES:
        for obj in iter_objects(str(path)):
            if isinstance(obj, ObjllvmError):
                continue
            for s in obj.sections:
                if registry.find_codec(s, obj) is not None:
                    yield pytest.param(obj, s, id=f"{obj.label.replace(str(TESTDATA) + '/', '')}[{s.index}]{s.name}")


SECTIONS = list(_sections())


def test_corpus_is_there():
    assert len(FILES) >= 20, "testdata/ is missing: run scripts/make-testdata"
    assert len(SECTIONS) >= 30


@pytest.mark.parametrize("obj,section", SECTIONS)
def test_encode_decode_is_identity(obj, section):
    d = registry.decode_section(obj, section)
    assert d.error is None, str(d.error)
    ctx = registry.SectionContext.for_section(obj, section)
    assert d.codec.encode(d.model, ctx) == section.data()
