"""What a campaign ran on and with: the machine, the toolchain, the commit, and hashes of
its inputs (binaries, plan, fixture files); and the builds of git-revision arms."""
import hashlib
import os
import platform
import shutil
import subprocess
import sys


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _run(cmd, cwd=None):
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def compiler(repo_root):
    """The C++ compiler of the repository's build/ (its CMake cache), else c++'s."""
    cache = os.path.join(repo_root, "build", "CMakeCache.txt")
    path = "c++"
    try:
        with open(cache) as f:
            for line in f:
                if line.startswith("CMAKE_CXX_COMPILER:"):
                    path = line.split("=", 1)[1].strip()
    except OSError:
        pass
    out = _run([path, "--version"])
    return out.splitlines()[0] if out else path


def commit(repo_root):
    sha = _run(["git", "rev-parse", "HEAD"], cwd=repo_root)
    dirty = _run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo_root)
    return sha + (" (with uncommitted changes)" if dirty else "") if sha else "unknown"


def describe(repo_root):
    """The environment record of docs/campaigns/README.md ("Environment")."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0, 0, 0)
    try:
        import numpy
        numpy_version = numpy.__version__
    except ImportError:
        numpy_version = "missing"
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "kernel": platform.release(),
        "os": platform.platform(),
        "compiler": compiler(repo_root),
        "commit": commit(repo_root),
        "python": sys.version.split()[0],
        "numpy": numpy_version,
        "load_average_at_start": [round(x, 2) for x in load],
        "pinning": "none (processes float over all cores)",
    }


class BuildError(Exception):
    pass


def build_revision(repo_root, revision, target, build_root, cmake_args=(), log=print):
    """Builds `target` of git `revision` of the repository in its own source and build
    directories under `build_root` (ccache shared through CCACHE_BASEDIR); the binary's path
    and the commit."""
    sha = _run(["git", "rev-parse", "--verify", f"{revision}^{{commit}}"], cwd=repo_root)
    if not sha:
        raise BuildError(f"git revision '{revision}' is not a commit of {repo_root}")
    # The build directory sits in the source tree as build/ does in a checkout, so that with
    # CCACHE_BASEDIR the compiler sees the same relative paths and ccache hits its entries.
    src = os.path.join(build_root, sha[:12])
    bld = os.path.join(src, "build")
    if not os.path.isdir(src):
        os.makedirs(build_root, exist_ok=True)
        tmp = src + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        archive = subprocess.run(["git", "archive", sha], cwd=repo_root, capture_output=True)
        if archive.returncode != 0:
            raise BuildError(f"git archive {sha}: {archive.stderr.decode(errors='replace')}")
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        os.rename(tmp, src)
    env = dict(os.environ, CCACHE_BASEDIR=src, CCACHE_NOHASHDIR="1")
    configure = ["cmake", "-S", src, "-B", bld, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                 "-DRL_BUILD_TESTS=OFF", *cmake_args]
    build = ["cmake", "--build", bld, "-j", "2", "--target", target]
    for cmd in (configure, build):
        log(f"build {revision} ({sha[:12]}): {' '.join(cmd)}")
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise BuildError(f"building {target} at {revision} failed:\n{r.stdout[-3000:]}"
                             f"{r.stderr[-3000:]}")
    binary = os.path.join(bld, "bin", target)
    if not os.path.isfile(binary):
        raise BuildError(f"building {target} at {revision} made no {binary}")
    return binary, sha
