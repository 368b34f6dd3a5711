"""A faster forward pass of speechbrain's ECAPA-TDNN embedding network for one CPU thread.

`FastEcapa` computes the same function with frames as rows (every conv one matrix product, batch norms folded),
some products in int8 as `precision` says (`INT8_LAYERS`). Networks of another shape raise `Unsupported` and the
caller keeps the speechbrain forward. Method: docs/tv.md; layer choices and figures: docs/benchmarks.md."""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F

PRECISIONS = ("int8", "int8-tdnn", "int8-all", "fp32")
# the layers each precision runs as int8 products: mfa = the aggregation conv, att = the pooling attention,
# tdnn = the 1x1 convs that open and close each SE-Res2Net block, first = the 5-tap input conv, res2 = the
# dilated 3-tap convs inside the Res2Net blocks
INT8_LAYERS = {"fp32": frozenset(), "int8": frozenset({"mfa", "att"}),
               "int8-tdnn": frozenset({"mfa", "att", "tdnn"}),
               "int8-all": frozenset({"mfa", "att", "tdnn", "first", "res2"})}
# int8 on AVX2 multiplies u8 activations by s8 weights and adds pairs in int16 (vpmaddubsw), which saturates
# for 8-bit weights; 7-bit weights (|q| <= 63: 2 * 255 * 63 < 32768) keep all 8 bits of the activations, which
# costs less accuracy than 7-bit activations (docs/benchmarks.md)
WMAX = 63.0


class Unsupported(ValueError):
    """The speechbrain module is not an ECAPA-TDNN this file knows how to run."""


def _bn(bn) -> tuple[torch.Tensor, torch.Tensor]:
    """An eval-mode BatchNorm1d as (scale, shift)."""
    bn = getattr(bn, "norm", bn)
    if not isinstance(bn, torch.nn.BatchNorm1d) or bn.running_mean is None:
        raise Unsupported(f"expected a BatchNorm1d with running statistics, got {type(bn).__name__}")
    scale = bn.weight.detach() / torch.sqrt(bn.running_var + bn.eps)
    return scale.contiguous(), (bn.bias.detach() - bn.running_mean * scale).contiguous()


def _prepack(q: torch.Tensor, bias: torch.Tensor | None):
    """Pack int8 weights for `linear_dynamic`, with oneDNN's kernels where torch has them: the same numbers
    as fbgemm's (u8 x s8, int32 sums), and faster on the 3072-wide products here."""
    engines = torch.backends.quantized.supported_engines
    if "onednn" not in engines:
        return torch.ops.quantized.linear_prepack(q, bias)
    was = torch.backends.quantized.engine
    torch.backends.quantized.engine = "onednn"
    try:
        return torch.ops.quantized.linear_prepack(q, bias)
    finally:
        torch.backends.quantized.engine = was


class _Matmul:
    """y = x @ W.T + b for x [T, K], in fp32 or dynamically quantised int8."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None, precision: str):
        self.precision = precision
        weight = weight.detach().float().contiguous()
        bias = None if bias is None else bias.detach().float().contiguous()
        if precision == "int8":
            amax = weight.abs().amax(dim=1).clamp(min=1e-12)
            with warnings.catch_warnings():  # "quantized tensors are deprecated": still the CPU int8 kernels in 2.13
                warnings.simplefilter("ignore", UserWarning)
                q = torch.quantize_per_channel(weight, amax / WMAX, torch.zeros(len(amax), dtype=torch.long),
                                               axis=0, dtype=torch.qint8)
                self.packed = _prepack(q, bias)
        else:
            self.weight, self.bias = weight, bias

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if self.precision == "int8":
            return torch.ops.quantized.linear_dynamic(x, self.packed, False)
        return F.linear(x, self.weight, self.bias)


class _Conv:
    """speechbrain Conv1d (padding 'same', reflect) -> ReLU -> BatchNorm, frames as rows."""

    def __init__(self, block, precision: str, relu_bn: bool = True):
        conv = getattr(block, "conv", block)
        conv = getattr(conv, "conv", conv)  # speechbrain wrapper -> torch.nn.Conv1d
        if not isinstance(conv, torch.nn.Conv1d) or conv.groups != 1 or conv.stride != (1,):
            raise Unsupported(f"expected an ungrouped stride-1 Conv1d, got {conv!r}")
        k, d = conv.kernel_size[0], conv.dilation[0]
        wrapper = getattr(block, "conv", block)
        if k > 1 and (getattr(wrapper, "padding", "same") != "same"
                      or getattr(wrapper, "padding_mode", "reflect") != "reflect"):
            raise Unsupported("expected 'same' reflect padding")
        if relu_bn and not isinstance(getattr(block, "activation", None), torch.nn.ReLU):
            raise Unsupported("expected ReLU activations")
        self.k, self.d, self.pad = k, d, (d * (k - 1)) // 2
        self._rows: dict[int, torch.Tensor] = {}  # frames -> _tap_rows
        w = conv.weight.detach()  # [out, in, k] -> [out, k*in], matching the stacked shifted copies
        self.mm = _Matmul(w.permute(0, 2, 1).reshape(w.shape[0], -1), conv.bias, precision)
        self.scale, self.shift = _bn(block.norm) if relu_bn else (None, None)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if self.k > 1:
            x = self._taps(x)
        y = self.mm(x)
        if self.scale is None:
            return y
        return torch.addcmul(self.shift, torch.relu_(y), self.scale, out=y)  # ReLU, then the folded batch norm

    def _taps(self, x: torch.Tensor) -> torch.Tensor:
        """The k dilated shifted copies of reflect-padded x side by side, [T, k*C], gathered in one copy."""
        n, c = x.shape
        idx = self._rows.get(n)
        if idx is None:
            idx = self._rows[n] = _tap_rows(n, self.k, self.d, self.pad)
        return x.index_select(0, idx).view(-1, self.k * c)


def _tap_rows(n: int, k: int, d: int, pad: int) -> torch.Tensor:
    """Source row of every (output frame, tap) of a 'same' reflect-padded dilated conv over n frames."""
    t = n + 2 * pad - d * (k - 1)
    j = torch.arange(t)[:, None] + d * torch.arange(k)[None, :] - pad  # index into the unpadded frames
    j = torch.where(j < 0, -j, j)
    j = torch.where(j > n - 1, 2 * (n - 1) - j, j)
    if j.min() < 0:
        raise ValueError(f"{n} frames are too few for reflect padding of {pad}")
    return j.reshape(-1)


class _SERes2Net:
    """TDNN 1x1 -> Res2Net (scale-1 dilated convs on channel chunks) -> TDNN 1x1 -> squeeze-excitation, + input."""

    def __init__(self, block, tdnn: str, res2: str):
        if block.shortcut is not None:
            raise Unsupported("SE-Res2Net blocks with a shortcut conv are not supported")
        self.tdnn1, self.tdnn2 = _Conv(block.tdnn1, tdnn), _Conv(block.tdnn2, tdnn)
        self.res2 = [_Conv(b, res2) for b in block.res2net_block.blocks]
        self.scale = block.res2net_block.scale
        se = block.se_block
        self.se1 = (se.conv1.conv.weight.detach()[:, :, 0], se.conv1.conv.bias.detach())
        self.se2 = (se.conv2.conv.weight.detach()[:, :, 0], se.conv2.conv.bias.detach())

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        h = self.tdnn1(x)
        chunks = torch.chunk(h, self.scale, dim=1)
        ys = [chunks[0]]
        for i, conv in enumerate(self.res2, start=1):
            ys.append(conv(chunks[i] if i == 1 else chunks[i] + ys[-1]))
        h = self.tdnn2(torch.cat(ys, dim=1))
        s = torch.relu(F.linear(h.mean(dim=0), *self.se1))
        s = torch.sigmoid(F.linear(s, *self.se2))
        return torch.addcmul(x, h, s)


class FastEcapa:
    """`FastEcapa(ecapa_tdnn_module, precision)(feats [T, n_mels]) -> embedding [lin_neurons]` (not normalised)."""

    def __init__(self, model, precision: str = "int8"):
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
        if type(model).__name__ != "ECAPA_TDNN" or not hasattr(model, "asp"):
            raise Unsupported(f"expected speechbrain's ECAPA_TDNN, got {type(model).__name__}")
        if not model.asp.global_context:
            raise Unsupported("attentive pooling without global context is not supported")
        self.precision = precision
        int8 = INT8_LAYERS[precision]

        def p(layer: str) -> str:
            return "int8" if layer in int8 else "fp32"

        with torch.no_grad():
            self.first = _Conv(model.blocks[0], p("first"))
            self.blocks = [_SERes2Net(b, p("tdnn"), p("res2")) for b in model.blocks[1:]]
            self.mfa = _Conv(model.mfa, p("mfa"))
            self._init_pooling(model, p("att"))

    def _init_pooling(self, model, precision: str) -> None:
        asp = model.asp
        self.eps = asp.eps
        w = asp.tdnn.conv.conv.weight.detach()[:, :, 0]  # [att, 3C]: frames | mean | std
        c = w.shape[1] // 3
        self.att_x = _Matmul(w[:, :c], None, precision)
        self.att_ctx = (w[:, c:].contiguous(), asp.tdnn.conv.conv.bias.detach())
        self.att_bn = _bn(asp.tdnn.norm)
        self.att_out = _Matmul(asp.conv.conv.weight.detach()[:, :, 0], asp.conv.conv.bias, precision)
        self.out_bn = _bn(model.asp_bn)
        self.fc = (model.fc.conv.weight.detach()[:, :, 0], model.fc.conv.bias.detach())

    def __call__(self, feats: torch.Tensor) -> torch.Tensor:
        x = self.first(feats.float().contiguous())
        outs = []
        for block in self.blocks:
            x = block(x)
            outs.append(x)
        x = self.mfa(torch.cat(outs, dim=1))
        return self._pool(x)

    def _pool(self, x: torch.Tensor) -> torch.Tensor:
        """Attentive statistics pooling, its batch norm and the final projection."""
        mean = x.mean(dim=0)  # (faster than torch.var_mean or einsum over dim 0 on one thread)
        d = x - mean
        ctx = F.linear(torch.cat([mean, d.mul_(d).mean(dim=0).clamp_(min=self.eps).sqrt_()]), *self.att_ctx)
        h = torch.relu_(self.att_x(x).add_(ctx))
        a = self.att_out(torch.addcmul(self.att_bn[1], h, self.att_bn[0], out=h).tanh_())  # [T, C] logits
        a = a.sub_(a.amax(dim=0)).exp_()  # softmax over time, normalised below
        total = a.sum(dim=0)
        mean = (a * x).sum(dim=0).div_(total)
        d = x - mean
        var = a.mul_(d).mul_(d).sum(dim=0).div_(total)
        pooled = torch.cat([mean, var.clamp_(min=self.eps).sqrt_()]) * self.out_bn[0] + self.out_bn[1]
        return F.linear(pooled, *self.fc)
