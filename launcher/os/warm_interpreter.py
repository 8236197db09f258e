# A warm interpreter (launcher/os/warm_interpreter.h): run by pai-launch as
#   python3 -c <this file> MODULE...
# with its channel to the launcher on fd 3. It imports MODULE... once, says "ready", and then
# forks one rank per request, each a copy of this state that runs the user's script or module
# as a fresh `python3 script.py args` would. It never runs user code itself.
#
# Channel (a Unix stream socket):
#   interpreter -> launcher, lines:  ready | error TEXT | pid N | cold TEXT
#   launcher -> interpreter:         a request: 4 bytes big-endian length, carrying the
#                                    descriptors stdin, stdout, stderr[, cgroup.procs], then
#                                    that many bytes of NUL-terminated fields (see read_request)
# After "error" and "cold" the interpreter exits; a launcher that closes the channel ends it.
import ctypes
import importlib
import importlib.machinery
import io
import os
import signal
import socket
import struct
import sys
import time

CHANNEL_FD = 3
MAX_REQUEST = 64 << 20
PR_SET_PDEATHSIG = 1
# Honoured per rank (see run_rank); the launcher compares the variables read when an
# interpreter starts (PYTHONPATH, LD_*, LANG, ...) before it asks for a rank.


def say(channel, line):
    channel.sendall(line.replace("\n", " ").encode("utf-8", "backslashreplace") + b"\n")


def thread_count():
    return len(os.listdir("/proc/self/task"))


def gpu_files():
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.startswith("/dev/nvidia") or target.startswith("/dev/dri"):
            found.append(target)
    return found


def fork_hazard():
    """Why this process cannot be forked as a fresh interpreter, or None."""
    threads = thread_count()
    if threads > 1:
        return "%d thread(s) besides the main one are running" % (threads - 1)
    gpu = gpu_files()
    if gpu:
        return "it holds %s open: a CUDA context does not survive a fork" % gpu[0]
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    if cuda is not None and getattr(cuda, "is_initialized", lambda: False)():
        return "torch initialised CUDA: a CUDA context does not survive a fork"
    return None


def preload(modules):
    for name in modules:
        try:
            importlib.import_module(name)
        except BaseException as e:  # a module may exit or raise anything while importing
            return "importing %r failed: %s: %s" % (name, type(e).__name__, e)
        hazard = fork_hazard()
        if hazard is not None:
            return "after importing %r, %s; leave it out of preload" % (name, hazard)
    return None


def module_files():
    files = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        files[path] = (st.st_mtime_ns, st.st_size)
    return files


def changed_file(files):
    for path, seen in files.items():
        try:
            st = os.stat(path)
        except OSError:
            return path
        if (st.st_mtime_ns, st.st_size) != seen:
            return path
    return None


def read_exactly(channel, size):
    data = bytearray()
    while len(data) < size:
        chunk = channel.recv(min(size - len(data), 1 << 20))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def read_request(channel):
    """(fields, descriptors), or None when the launcher closed the channel.

    Fields: version "1", cwd, process group (0 = lead a new one), launcher pid, argc, argv...,
    then the environment as NAME=VALUE entries."""
    header, fds, _, _ = socket.recv_fds(channel, 4, 8)
    if len(header) < 4 and header:
        header += read_exactly(channel, 4 - len(header)) or b""
    if len(header) < 4:
        return None
    (size,) = struct.unpack(">I", header)
    if size > MAX_REQUEST:
        raise ValueError("a request of %d bytes" % size)
    payload = read_exactly(channel, size)
    if payload is None:
        return None
    fields = payload.split(b"\0")
    if fields[-1] != b"" or fields[0] != b"1":
        raise ValueError("a request the interpreter cannot read")
    return fields[:-1], fds


def wait_for_adoption(launcher, middle):
    # The launcher is a subreaper: this process becomes its child when `middle`, our parent,
    # exits. The death signal is set after that, or our parent's exit would fire it. Adopted
    # by another (the launcher died first: init, or a subreaper above it), the rank would wait
    # for nobody: it ends at once instead of at the deadline.
    deadline = time.monotonic() + 5
    while True:
        parent = os.getppid()
        if parent == launcher:
            break
        if parent != middle or time.monotonic() > deadline:
            os._exit(127)
        time.sleep(0.0002)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != launcher:
        os._exit(127)


def reopen_stdio(unbuffered):
    # As the interpreter's start-up makes them: stdout line-buffered on a terminal, stderr
    # always; -u or PYTHONUNBUFFERED writes through.
    encoding, errors = sys.stdout.encoding, sys.stdout.errors
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(
        io.open(0, "rb", closefd=False), encoding=sys.stdin.encoding, errors=sys.stdin.errors)
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(
        io.open(1, "wb", buffering=0 if unbuffered else -1, closefd=False), encoding=encoding,
        errors=errors, line_buffering=os.isatty(1), write_through=unbuffered)
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(
        io.open(2, "wb", buffering=0 if unbuffered else -1, closefd=False), encoding=encoding,
        errors="backslashreplace", line_buffering=True, write_through=unbuffered)


def run_rank(channel, fields, fds, options, middle):
    cwd, group, launcher, argc = fields[1], int(fields[2]), int(fields[3]), int(fields[4])
    argv = [os.fsdecode(a) for a in fields[5:5 + argc]]
    env = fields[5 + argc:]
    if len(fds) == 4:
        os.write(fds[3], b"0")  # into the rank's cgroup before anything else
        os.close(fds[3])
    try:
        os.setpgid(0, group)
    except OSError:
        pass  # our parent already put us in it
    channel.close()
    wait_for_adoption(launcher, middle)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for target, fd in enumerate(fds[:3]):
        os.dup2(fd, target)
    for fd in set(fds[:3]):
        if fd > 2:
            os.close(fd)
    if cwd:
        os.chdir(cwd)
    os.environb.clear()
    for entry in env:
        name, _, value = entry.partition(b"=")
        os.environb[name] = value
    unbuffered = options["unbuffered"] or bool(os.environ.get("PYTHONUNBUFFERED"))
    if options["no_bytecode"] or os.environ.get("PYTHONDONTWRITEBYTECODE"):
        sys.dont_write_bytecode = True
    reopen_stdio(unbuffered)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()  # a fresh interpreter seeds it from the system's entropy
    run_main(argv, options)


def run_main(argv, options):
    import runpy
    import types

    name = os.path.basename(sys.executable) or "python3"
    sys.orig_argv = list(argv)
    if options["module"]:
        sys.argv = ["-m"] + argv[options["first_arg"]:]
        sys.path[0] = os.getcwd()
        runpy._run_module_as_main(options["target"], alter_argv=True)
        return
    script = options["target"]
    sys.argv = [script] + argv[options["first_arg"]:]
    path = os.path.abspath(script)
    sys.path[0] = os.path.dirname(path)
    try:
        with io.open_code(path) as f:
            source = f.read()
    except OSError as e:
        sys.stderr.write("%s: can't open file %r: [Errno %d] %s\n" % (name, path, e.errno,
                                                                        e.strerror))
        sys.exit(2)
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    try:
        code = compile(source, path, "exec")
        exec(code, main.__dict__)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException:
        kind, value, trace = sys.exc_info()
        # As a fresh interpreter shows it: from the script's frame on, none of ours.
        sys.excepthook(kind, value.with_traceback(trace.tb_next), trace.tb_next)
        sys.exit(1)


def parse_options(argv):
    # The role's command, as libpai/python_command.h reads it.
    options = {"unbuffered": False, "no_bytecode": False, "module": False}
    i = 1
    while i < len(argv):
        if argv[i] == "-u":
            options["unbuffered"] = True
        elif argv[i] == "-B":
            options["no_bytecode"] = True
        elif argv[i] == "-m":
            options["module"] = True
            i += 1
            break
        else:
            break
        i += 1
    options["target"] = argv[i]
    options["first_arg"] = i + 1
    return options


def serve(channel):
    failure = preload(sys.argv[1:])
    if failure is not None:
        say(channel, "error " + failure)
        sys.exit(1)
    files = module_files()
    say(channel, "ready")
    while True:
        request = read_request(channel)
        if request is None:
            sys.exit(0)
        fields, fds = request
        argc = int(fields[4])
        changed = changed_file(files)
        hazard = fork_hazard()
        if changed or hazard:
            say(channel, "cold " + ("%s changed since the warm interpreter imported it" % changed
                                    if changed else hazard))
            sys.exit(0)
        sys.stdout.flush()
        sys.stderr.flush()
        options = parse_options([os.fsdecode(a) for a in fields[5:5 + argc]])
        # The rank is our grandchild: its parent exits at once, and the launcher, a subreaper,
        # adopts it. It is said only once adopted, so the launcher may wait for it at once.
        read_end, write_end = os.pipe()
        middle = os.fork()
        if middle == 0:
            os.close(read_end)
            middle_pid = os.getpid()
            rank = os.fork()
            if rank == 0:
                os.close(write_end)
                run_rank(channel, fields, fds, options, middle_pid)
                sys.exit(0)
            try:
                group = int(fields[2])
                os.setpgid(rank, group if group else rank)
            except OSError:
                pass  # it did so itself
            os.write(write_end, b"%d" % rank)
            os._exit(0)
        os.close(write_end)
        for fd in fds:
            os.close(fd)
        with os.fdopen(read_end, "rb") as f:
            rank = f.read()
        os.waitpid(middle, 0)
        if not rank:
            say(channel, "cold the warm interpreter could not fork")
            sys.exit(0)
        say(channel, "pid " + rank.decode())

serve(socket.socket(fileno=CHANNEL_FD))
