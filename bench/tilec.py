"""tilec.py: a ctypes binding of runtime/tilec.h, for the benchmarks.

    import torch, tilec
    k = tilec.Kernel.compile("dsl_examples/softmax.tile", "softmax",
                             defines={"BLOCK": 1024}, num_warps=4)
    k.launch(rows, out, x, x.stride(0), n)        # on torch's current stream

The library is libtilec.so from $TILEC_LIB, else ../build-bundle/bundle/
next to this file (`make device-bundle` builds it).  tilec uses the CUDA
*primary* context of the device, the one PyTorch uses, so tensors from torch
are valid kernel arguments and launches order with torch's work on the same
stream.  Errors raise TilecError with the runtime's message.
"""
import ctypes
import os

__all__ = ["TilecError", "Kernel", "compile_ptx", "context"]

# tilec_status
OK, ERROR_INVALID, ERROR_COMPILE, ERROR_ARGS, ERROR_NO_DRIVER, ERROR_CUDA = range(6)
_STATUS = ["OK", "INVALID", "COMPILE", "ARGS", "NO_DRIVER", "CUDA"]
# tilec_arg_kind
ARG_I32, ARG_I64, ARG_F32, ARG_F64, ARG_PTR = range(5)
_KIND = ["i32", "i64", "f32", "f64", "pointer"]


class TilecError(RuntimeError):
    def __init__(self, status, message):
        name = _STATUS[status] if 0 <= status < len(_STATUS) else str(status)
        super().__init__(f"tilec: {name}: {message}")
        self.status = status
        self.message = message


class _Define(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_longlong)]


class _Options(ctypes.Structure):
    _fields_ = [("defines", ctypes.POINTER(_Define)), ("ndefines", ctypes.c_int),
                ("num_warps", ctypes.c_int), ("num_stages", ctypes.c_int),
                ("arch", ctypes.c_char_p), ("source_name", ctypes.c_char_p)]


class _Value(ctypes.Union):
    _fields_ = [("i32", ctypes.c_int32), ("i64", ctypes.c_int64), ("f32", ctypes.c_float),
                ("f64", ctypes.c_double), ("ptr", ctypes.c_ulonglong)]


class _Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("v", _Value)]


_lib = None


def _library():
    """Load libtilec.so once and declare the C signatures."""
    global _lib
    if _lib is not None:
        return _lib
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.environ.get("TILEC_LIB") or os.path.join(here, "..", "build-bundle", "bundle", "libtilec.so")
    if not os.path.exists(path):
        raise OSError(f"tilec: {path} does not exist: run `make device-bundle` or set TILEC_LIB")
    lib = ctypes.CDLL(path)
    P, I, U, S = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_char_p
    sigs = {
        "tilec_context_create": (I, [I, ctypes.POINTER(P)]),
        "tilec_context_destroy": (None, [P]),
        "tilec_context_error": (S, [P]),
        "tilec_compile": (I, [P, S, S, ctypes.POINTER(_Options), ctypes.POINTER(P)]),
        "tilec_launch": (I, [P, U, U, U, P, ctypes.POINTER(_Arg), I]),
        "tilec_kernel_destroy": (None, [P]),
        "tilec_kernel_num_params": (I, [P]),
        "tilec_kernel_param_kind": (I, [P, I]),
        "tilec_kernel_compile_times": (None, [P, ctypes.POINTER(ctypes.c_double)]),
        "tilec_synchronize": (I, [P]),
        "tilec_compile_ptx": (I, [S, S, ctypes.POINTER(_Options), ctypes.POINTER(P), ctypes.POINTER(P)]),
        "tilec_free_string": (None, [P]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    _lib = lib
    return lib


def _options(defines, num_warps, num_stages, arch, source_name):
    """A tilec_options and the objects it points into (kept alive by the caller)."""
    defs = list((defines or {}).items())
    arr = (_Define * max(len(defs), 1))()
    for i, (k, v) in enumerate(defs):
        arr[i].name = k.encode()
        arr[i].value = int(v)
    o = _Options(arr if defs else None, len(defs), num_warps or 0, num_stages or 0,
                 arch.encode() if arch else None, source_name.encode() if source_name else None)
    return o, arr


def _read_source(source_or_path):
    """(text, name for diagnostics): a path to an existing file, or source text."""
    if "\n" not in source_or_path and os.path.isfile(source_or_path):
        with open(source_or_path) as f:
            return f.read(), os.path.basename(source_or_path)
    return source_or_path, None


def _take_string(lib, p):
    if not p.value:
        return ""
    s = ctypes.string_at(p.value).decode(errors="replace")
    lib.tilec_free_string(p)
    return s


def compile_ptx(source_or_path, name=None, defines=None, num_warps=0, num_stages=0, arch="sm_90"):
    """PTX text for a kernel; needs no GPU."""
    lib = _library()
    text, src_name = _read_source(source_or_path)
    o, keep = _options(defines, num_warps, num_stages, arch, src_name)
    ptx, log = ctypes.c_void_p(), ctypes.c_void_p()
    st = lib.tilec_compile_ptx(text.encode(), name.encode() if name else None, ctypes.byref(o),
                               ctypes.byref(ptx), ctypes.byref(log))
    ptx_text, log_text = _take_string(lib, ptx), _take_string(lib, log)
    if st != OK:
        raise TilecError(st, log_text)
    return ptx_text


class _Context:
    """A tilec_context on one device (the device's primary CUDA context)."""

    def __init__(self, device):
        self.lib = _library()
        self.handle = ctypes.c_void_p()
        st = self.lib.tilec_context_create(device, ctypes.byref(self.handle))
        if st != OK:
            msg = self.error()
            self.lib.tilec_context_destroy(self.handle)
            self.handle = None
            raise TilecError(st, msg)
        self.device = device

    def error(self):
        s = self.lib.tilec_context_error(self.handle)
        return s.decode(errors="replace") if s else ""

    def check(self, st):
        if st != OK:
            raise TilecError(st, self.error())

    def synchronize(self):
        self.check(self.lib.tilec_synchronize(self.handle))

    def __del__(self):
        if getattr(self, "handle", None) and _lib is not None:
            _lib.tilec_context_destroy(self.handle)
            self.handle = None


_contexts = {}


def _torch():
    try:
        import torch
        return torch
    except ImportError:
        return None


_stream_of = None  # () -> torch's current CUstream as an int, found on first use


def _current_stream():
    """torch's current stream on its current device, else 0 (the default stream).

    torch.cuda.current_stream() builds a Stream object per call, several
    microseconds; the raw handle getter Triton's launcher uses costs a
    fraction of that, so a launch through this binding stays cheap."""
    global _stream_of
    if _stream_of is None:
        t = _torch()
        if t is None or not t.cuda.is_available():
            _stream_of = lambda: 0  # noqa: E731
        elif hasattr(t._C, "_cuda_getCurrentRawStream") and hasattr(t._C, "_cuda_getDevice"):
            raw, dev = t._C._cuda_getCurrentRawStream, t._C._cuda_getDevice
            _stream_of = lambda: raw(dev())  # noqa: E731
        else:
            _stream_of = lambda: t.cuda.current_stream().cuda_stream  # noqa: E731
    return _stream_of()


def context(device=None):
    """The shared context of a device (default: torch's current device, else 0)."""
    if device is None:
        t = _torch()
        device = t.cuda.current_device() if t is not None and t.cuda.is_available() else 0
    if device not in _contexts:
        t = _torch()
        if t is not None and t.cuda.is_available():
            t.cuda.init()  # so torch and tilec both hold the primary context
        _contexts[device] = _Context(device)
    return _contexts[device]


class Kernel:
    """A compiled kernel: Kernel.compile(...), then launch(grid, *args)."""

    def __init__(self, ctx, handle, name):
        self.ctx, self.handle, self.name = ctx, handle, name
        lib = ctx.lib
        n = lib.tilec_kernel_num_params(handle)
        self.kinds = [lib.tilec_kernel_param_kind(handle, i) for i in range(n)]
        self._args = (_Arg * max(n, 1))()
        for i, k in enumerate(self.kinds):
            self._args[i].kind = k

    @classmethod
    def compile(cls, source_or_path, name=None, defines=None, num_warps=0, num_stages=0, device=None, arch=None):
        """Compile `name` (None: the first kernel) from a .tile path or source text.
        defines: {"BLOCK": 1024, ...}; num_warps/num_stages 0: the kernel's own;
        arch None: the device's (sm_90a on an H100)."""
        ctx = context(device)
        text, src_name = _read_source(source_or_path)
        o, keep = _options(defines, num_warps, num_stages, arch, src_name)
        h = ctypes.c_void_p()
        ctx.check(ctx.lib.tilec_compile(ctx.handle, text.encode(), name.encode() if name else None,
                                        ctypes.byref(o), ctypes.byref(h)))
        return cls(ctx, h, name or "kernel")

    def _set(self, i, kind, a):
        v = self._args[i].v
        if kind == ARG_PTR:
            if hasattr(a, "data_ptr"):
                if not getattr(a, "is_cuda", True):
                    raise TypeError(f"argument {i + 1} of '{self.name}': tensor is not on a CUDA device")
                v.ptr = a.data_ptr()
            elif isinstance(a, int):
                v.ptr = a
            else:
                raise TypeError(f"argument {i + 1} of '{self.name}' is a pointer, got {type(a).__name__}")
        elif kind in (ARG_I32, ARG_I64):
            if isinstance(a, float) or not hasattr(a, "__index__"):
                raise TypeError(f"argument {i + 1} of '{self.name}' is {_KIND[kind]}, got {type(a).__name__}")
            if kind == ARG_I32:
                v.i32 = a
            else:
                v.i64 = a
        elif kind == ARG_F32:
            v.f32 = float(a)
        else:
            v.f64 = float(a)

    def launch(self, grid, *args, stream=None):
        """Launch on grid (an int or a tuple of up to 3) on `stream` (a CUstream
        handle; default: torch.cuda.current_stream().cuda_stream, else 0)."""
        if len(args) != len(self.kinds):
            raise TypeError(f"'{self.name}' takes {len(self.kinds)} arguments, got {len(args)}")
        for i, (k, a) in enumerate(zip(self.kinds, args)):
            self._set(i, k, a)
        g = (grid, 1, 1) if isinstance(grid, int) else tuple(grid) + (1,) * (3 - len(grid))
        if stream is None:
            stream = _current_stream()
        self.ctx.check(self.ctx.lib.tilec_launch(self.handle, g[0], g[1], g[2], stream or None,
                                                 self._args, len(self.kinds)))

    __call__ = launch

    def compile_times(self):
        """(front end, passes, codegen, module load) in milliseconds."""
        ms = (ctypes.c_double * 4)()
        self.ctx.lib.tilec_kernel_compile_times(self.handle, ms)
        return tuple(ms)

    def __del__(self):
        if getattr(self, "handle", None) and _lib is not None:
            _lib.tilec_kernel_destroy(self.handle)
            self.handle = None
