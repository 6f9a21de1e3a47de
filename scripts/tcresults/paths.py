"""Where the repository's parts are, from this package's place in scripts/."""
import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(TOP, "scripts")
EXP_DIR = os.path.join(SCRIPTS, "experiments")
PLOT_DIR = os.path.join(SCRIPTS, "plots")
PALETTE = os.path.join(PLOT_DIR, "palette")
