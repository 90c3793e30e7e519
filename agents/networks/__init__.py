"""The board networks as plain torch modules, and the model format that saves them without stable-baselines3.

Both the evaluation and the training import these (they sit below both): :mod:`agents.networks.player` plays a saved
model with torch alone, and :mod:`train.sb3.networks` wraps the same modules as stable-baselines3 policies, so the
weights a run trains are the weights the format saves, key for key.

- :mod:`agents.networks.layers`: input planes, board-wide sums, per-cell heads;
- :mod:`agents.networks.trunks`: the trunks (grid in, feature map out);
- :mod:`agents.networks.spec`: the model card's ``network`` section (no torch: cards are read without it);
- :mod:`agents.networks.saved`: the playing network (a trunk and the head that gives the action), its weights file;
- :mod:`agents.networks.player`: a saved model as an agent (its card checked, its network played greedily);
- :mod:`agents.networks.mirrored_play`: a network's scores averaged over the board's symmetries.

Nothing is imported here, so that reading a card never imports torch.
"""
