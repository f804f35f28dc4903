"""In-process models: the transformers causal LM, the embedded chat model, the embedders and
where their weights live. Only `causal_lm` imports torch, and only when first loaded."""
