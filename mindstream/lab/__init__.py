"""The research harness apart from the product: experiments that reproduce the papers'
measurements (`experiments/`), the believability judge, ratings and interviews
(`believability/`), and the runners that train the embedded model's adapters (`training/`).

It sits above `mindstream` (it builds its parts through `mindstream.compose.Parts`) and adds
the `eval` and `train` command groups to the `mindstream` command line through the
`mindstream.commands` entry points. Its extra dependencies come with `pip install
mindstream[lab]`.
"""
