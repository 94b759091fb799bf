"""hopvista: verified multimodal multi-hop reasoning benchmarks."""

__version__ = "0.1.0"
