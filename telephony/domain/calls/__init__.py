"""The rules of a call, each in its module (import them by name: the call events import `call`).

`call` a call's state and parts; `fold` the transitions and how events fold into the state; `rules`
the commands; `simulation` the simulator's plan and next step; `menu` an IVR's menu; `queue` which
agents a queue rings.
"""
