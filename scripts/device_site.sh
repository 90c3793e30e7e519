# Sourced by the device_*.sh scripts, from the repository root: installs the wheels carried in .whl/ (the
# packages a lent machine lacks: gymnasium, farama-notifications, stable-baselines3, sb3-contrib) into
# /tmp/site, once per machine, and puts it and the checkout on PYTHONPATH.
if ! PYTHONPATH=/tmp/site python3 -c "import sb3_contrib" 2>/dev/null; then
  [ -d .whl ] || { echo "this machine lacks sb3_contrib and no .whl/ was carried: carry .whl"; exit 1; }
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=/tmp/site:$PWD
