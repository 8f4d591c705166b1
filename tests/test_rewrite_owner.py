"""Who owns a rewritten file, and with what mode (docs/rewrite.md, "Owner and mode").

``--in-place`` keeps the file's owner, group, mode (set-user-ID and set-group-ID bits too) and extended attributes,
or refuses and leaves the file as it was.  ``-o OUT`` writes a new file of the user running objllvm with the input's
mode, less a set-user-ID (set-group-ID) bit when the new file's owner (group) is not the input's, which it says.
These tests change owners: they run as root (the machine's CI user), else skip."""
from __future__ import annotations

import os
import pwd
import grp
import shutil
import stat
import tempfile

import pytest

from conftest import TESTDATA, run_objllvm
from objllvm import rewrite as rw
from objllvm.errors import ObjllvmError

SRC = TESTDATA / "rewrite-relro" / "relro-tail.pie"

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="changes files' owners: needs root")


def _nobody():
    try:
        return pwd.getpwnam("nobody").pw_uid, grp.getgrnam("nogroup").gr_gid
    except KeyError:
        pytest.skip("no user nobody / group nogroup on this system")


def _program(d, mode=0o4755, owner=None):
    p = d / "prog"
    shutil.copyfile(SRC, p)
    if owner is not None:
        os.chown(p, *owner)
    os.chmod(p, mode)
    return p


def _xattr(p, name, value) -> bool:
    try:
        os.setxattr(p, name, value)
        return True
    except OSError:
        return False


def test_in_place_keeps_owner_group_setuid_and_xattrs(tmp_path):
    uid, gid = _nobody()
    p = _program(tmp_path, 0o4755, (uid, gid))
    has_xattr = _xattr(p, "user.objllvm-test", b"kept")
    before = p.read_bytes()
    rc, _, err = run_objllvm("rewrite", p, "--in-place", "--remove", ".comment")
    assert rc == 0, err
    st = p.stat()
    assert p.read_bytes() != before                       # (rewritten: .comment is gone)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (uid, gid, 0o4755)
    if not has_xattr:
        pytest.skip(f"the file system of {tmp_path} refuses user.* extended attributes: owner and mode checked")
    assert os.getxattr(p, "user.objllvm-test") == b"kept"
    assert os.listdir(tmp_path) == ["prog"]


def test_in_place_keeps_setgid_and_a_group_of_its_own(tmp_path):
    _, gid = _nobody()
    p = _program(tmp_path, 0o2750, (0, gid))
    rc, _, err = run_objllvm("rewrite", p, "--in-place", "--remove", ".comment")
    assert rc == 0, err
    st = p.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (0, gid, 0o2750)


def test_in_place_that_cannot_keep_the_owner_is_refused():
    """As user nobody (a forked child with that effective uid), a root-owned file in a directory nobody may write:
    the new file cannot be given to root, so nothing is replaced and no temporary file is left."""
    uid, gid = _nobody()
    d = tempfile.mkdtemp(prefix="objllvm-owner-")      # (pytest's tmp_path is root's alone: nobody cannot enter)
    try:
        os.chmod(d, 0o777)
        p = os.path.join(d, "prog")
        shutil.copyfile(SRC, p)
        os.chmod(p, 0o4755)
        before = open(p, "rb").read()
        warm = os.path.join(d, "warm")
        rw.rewrite_file(p, warm, [rw.Remove(".comment")])      # (every module loaded before the child drops root)
        os.unlink(warm)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:            # pragma: no cover - the child
            os.close(r)
            try:
                os.setegid(gid)
                os.seteuid(uid)
                try:
                    rw.rewrite_file(p, None, [rw.Remove(".comment")], in_place=True)
                    msg = "written"
                except ObjllvmError as exc:
                    msg = "refused: " + str(exc)
                except BaseException as exc:        # noqa: BLE001
                    msg = f"other: {type(exc).__name__}: {exc}"
                os.write(w, msg.encode())
            finally:
                os._exit(0)
        os.close(w)
        msg = b""
        while chunk := os.read(r, 4096):
            msg += chunk
        os.close(r)
        os.waitpid(pid, 0)
        msg = msg.decode()
        assert msg.startswith("refused: ") and "cannot keep its owner" in msg and p in msg, msg
        st = os.stat(p)
        assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (0, 0o4755)
        assert open(p, "rb").read() == before
        assert sorted(os.listdir(d)) == ["prog"]
    finally:
        shutil.rmtree(d)


def test_output_of_another_owner_drops_setuid_and_says_so(tmp_path):
    uid, gid = _nobody()
    p = _program(tmp_path, 0o6755, (uid, gid))
    out = tmp_path / "out"
    rc, _, err = run_objllvm("rewrite", p, "-o", out)
    assert rc == 0, err
    st = out.stat()
    assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (0, 0o755)
    assert "warning" in err and "set-user-ID and set-group-ID" in err, err
    assert out.read_bytes() == p.read_bytes()


def test_output_of_the_same_owner_keeps_setuid(tmp_path):
    p = _program(tmp_path, 0o4755, (0, 0))
    out = tmp_path / "out"
    rc, _, err = run_objllvm("rewrite", p, "-o", out)
    assert rc == 0 and "warning" not in err, err
    assert stat.S_IMODE(out.stat().st_mode) == 0o4755


def test_output_onto_an_existing_file_replaces_it_with_a_new_one(tmp_path):
    """-o OUT where OUT exists: OUT becomes a new file (the rewriting user's, the input's mode), as a compiler's or
    llvm-objcopy's output does; --no-clobber refuses, naming the option."""
    uid, gid = _nobody()
    p = _program(tmp_path, 0o755)
    out = tmp_path / "out"
    out.write_bytes(b"old")
    os.chown(out, uid, gid)
    os.chmod(out, 0o600)
    rc, _, err = run_objllvm("rewrite", p, "-o", out, "--no-clobber")
    assert rc == 1 and "--no-clobber given" in err and "--force" not in err, err
    assert out.read_bytes() == b"old"
    rc, _, err = run_objllvm("rewrite", p, "-o", out)
    assert rc == 0, err
    st = out.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (0, 0, 0o755)
    assert out.read_bytes() == p.read_bytes()


def test_in_place_keeps_a_file_capability(tmp_path):
    """security.capability (what setcap(8) writes: VFS_CAP_REVISION_2, effective, CAP_NET_BIND_SERVICE): the kernel
    clears it when the owner changes, so it is set on the new file after its owner."""
    import struct
    uid, gid = _nobody()
    p = _program(tmp_path, 0o755, (uid, gid))
    cap = struct.pack("<5I", 0x02000001, 1 << 10, 0, 0, 0)
    if not _xattr(p, "security.capability", cap):
        pytest.skip(f"the file system of {tmp_path} refuses security.capability")
    rc, _, err = run_objllvm("rewrite", p, "--in-place", "--remove", ".comment")
    assert rc == 0, err
    st = p.stat()
    assert (st.st_uid, st.st_gid) == (uid, gid)
    assert os.getxattr(p, "security.capability")[:8] == cap[:8]
