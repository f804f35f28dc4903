"""Knowledge distillation: a smaller model learns a trained one's probabilities as well as
the labels (Hinton et al. 2015), since the teacher's "how sure" on each example carries more
than a hard label. Used to train cheaper change judges and rerankers from the shipped ones."""

from __future__ import annotations

from typing import Any


def distillation_loss(logits: Any, teacher: Any, temperature: float) -> Any:
    """KL(teacher || student) over the last axis at `temperature`, scaled by its square so its
    gradients match the hard loss's whatever the temperature."""
    import torch

    student = torch.log_softmax(logits / temperature, dim=-1)
    target = torch.softmax(teacher.float() / temperature, dim=-1)
    kl = torch.nn.functional.kl_div(student, target, reduction="batchmean")
    return kl * temperature**2
