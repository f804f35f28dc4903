"""The small trained judges where the 135M model must decide: yes/no adapters (entailment,
relation, reaction) and the change judge's pair model."""
