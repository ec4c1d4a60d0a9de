"""Institutions: turning an affiliation string into a stable slug, display name and country.

Sources print one institution in dozens of ways ("Dept. of CS, Stanford University",
"Stanford Univ.", "Stanford"); the facets, the institution pages and the people
resolution need one id for it. The paperlists data already gives a normalised name
(`aff_unique_norm`) for most slots; raw strings come from the other sources. Both go
through the same steps:

1. folding: ASCII, lower case, one spelling per word. Misspelled institution words
   ("Techonology", "Univeristy", "Academic of"), German umlauts written out ("Tuebingen"),
   footnote numbers glued on ("Barbara1"), accents a PDF extraction set apart
   ("T´el´ecom", "Montr éal") and escapes that lost their backslash ("Universit u00e9")
   are undone; a whole name that is a university of a place in another language or order
   ("Universität Stuttgart", "University Tübingen", "Eberhard Karls Universität
   Tübingen", "Università degli Studi di Padova") becomes "university of <place>";
2. an exact match of the folded string (or of one of its comma-separated parts, its legal
   form "Inc"/"Corporation"/"Co., Ltd." forgiven) against the curated table below, which
   covers the ~190 institutions with the most author slots in the data (checked by hand:
   names, abbreviations, country);
3. a search for a full institution name inside each comma-separated part, leftmost
   first, so the department in front of it does not matter; a name may run on into the
   next part, since a comma also sets off a campus ("University of California, Los
   Angeles"); a name ending in "university" does not match when "of"/"at" follows
   ("Zhejiang University of Technology" is not ZJU), one starting with "university" only
   at the start of a part ("Science University of Tokyo" is not the University of Tokyo);
   then names written as one word ("GoogleDeepMind");
4. otherwise a generic slug from the normalised name, or from the part of the raw string
   that names an institution (not a department, not a street address), without its legal
   form. A string that starts with a street address names no institution.

Resolution is pure and cached: the 87,885 paperlists records repeat the same few
thousand strings.
"""

from __future__ import annotations

import html

import re
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from anyascii import anyascii

from paperfind.model import Affiliation
from paperfind.text.fold import slugify

# slug | display name | country | full names (searched inside strings) | exact-only forms
_TABLE = """
cmu|Carnegie Mellon University|United States|carnegie mellon university;carnegie mellon|CMU
mit|Massachusetts Institute of Technology|United States|massachusetts institute of technology;mit csail;mit media lab;mit lincoln laboratory|MIT;MIT CSAIL
google|Google|United States|google;google research;google brain;google inc;google llc|
google-deepmind|Google DeepMind|United Kingdom|deepmind;google deepmind;deepmind technologies|
berkeley|University of California, Berkeley|United States|university of california berkeley;university of california at berkeley;uc berkeley;berkeley ai research|UCB;Berkeley
stanford|Stanford University|United States|stanford university;university of stanford;stanford|
eth-zurich|ETH Zurich|Switzerland|eth zurich;ethz;swiss federal institute of technology zurich;eidgenossische technische hochschule zurich;swiss federal institute of technology eth|ETH;Swiss Federal Institute of Technology
tsinghua|Tsinghua University|China|tsinghua university;tsinghua|THU
nthu|National Tsing Hua University|Taiwan|national tsing hua university;national tsinghua university|NTHU
microsoft-research|Microsoft Research|United States|microsoft;microsoft research;microsoft research asia|MSR;MSRA
utokyo|University of Tokyo|Japan|university of tokyo|UTokyo;Tokyo University
cas|Chinese Academy of Sciences|China|chinese academy of sciences;chinese academy of science|CAS
georgia-tech|Georgia Institute of Technology|United States|georgia institute of technology;georgia tech;georgiatech|
pku|Peking University|China|peking university;peking univ|PKU;Peking U
cuhk|Chinese University of Hong Kong|China|chinese university of hong kong|CUHK
zju|Zhejiang University|China|zhejiang university|ZJU
upenn|University of Pennsylvania|United States|university of pennsylvania;upenn|Penn
uw|University of Washington|United States|university of washington|
usc|University of Southern California|United States|university of southern california|
sjtu|Shanghai Jiao Tong University|China|shanghai jiao tong university;shanghai jiaotong university|SJTU
ut-austin|University of Texas at Austin|United States|university of texas at austin;university of texas austin;ut austin|
oxford|University of Oxford|United Kingdom|university of oxford;oxford university|Oxford
nus|National University of Singapore|Singapore|national university of singapore|NUS
ucas|University of Chinese Academy of Sciences|China|university of chinese academy of sciences;university of chinese academy of science|UCAS
meta|Meta|United States|facebook;facebook ai research;meta ai;meta platforms;meta reality labs;meta fair;fundamental ai research|Meta;FAIR;Meta Inc
toronto|University of Toronto|Canada|university of toronto|UofT;U of T
amazon|Amazon|United States|amazon|
umich|University of Michigan|United States|university of michigan|UMich
ucsd|University of California, San Diego|United States|university of california san diego;uc san diego|UCSD
ntu|Nanyang Technological University|Singapore|nanyang technological university|
uiuc|University of Illinois Urbana-Champaign|United States|university of illinois urbana champaign;university of illinois at urbana champaign;uiuc|
jhu|Johns Hopkins University|United States|johns hopkins university;johns hopkins|JHU
tencent|Tencent|China|tencent|
imperial|Imperial College London|United Kingdom|imperial college london;imperial college|
snu|Seoul National University|South Korea|seoul national university|SNU
iit-italy|Istituto Italiano di Tecnologia|Italy|istituto italiano di tecnologia;italian institute of technology|
ucla|University of California, Los Angeles|United States|university of california los angeles;uc los angeles|UCLA
caltech|California Institute of Technology|United States|california institute of technology;caltech|
hkust|Hong Kong University of Science and Technology|China|hong kong university of science and technology|HKUST
harvard|Harvard University|United States|harvard university;harvard|
epfl|EPFL|Switzerland|epfl;ecole polytechnique federale de lausanne;ecole polytechnique federal de lausanne;ecole polytechnique federale lausanne;swiss federal institute of technology in lausanne;swiss federal institute of technology lausanne|
ibm-research|IBM Research|United States|ibm;ibm research;international business machines|
inria|Inria|France|inria|
kaist|KAIST|South Korea|korea advanced institute of science and technology;kaist|
cornell|Cornell University|United States|cornell university;cornell tech;cornell|
columbia|Columbia University|United States|columbia university|Columbia
hit|Harbin Institute of Technology|China|harbin institute of technology|HIT
waseda|Waseda University|Japan|waseda university;waseda|
umd|University of Maryland|United States|university of maryland;university of maryland college park|UMD
umbc|University of Maryland, Baltimore County|United States|university of maryland baltimore county|UMBC
buaa|Beihang University|China|beihang university;beijing university of aeronautics and astronautics|BUAA
tum|Technical University of Munich|Germany|technical university of munich;technical university munich;technical university of munchen;technische universitat munchen;technische universitat munich;tu munich;tu munchen|TUM
osaka|Osaka University|Japan|osaka university|
princeton|Princeton University|United States|princeton university;princeton|
ustc|University of Science and Technology of China|China|university of science and technology of china|USTC
usyd|University of Sydney|Australia|university of sydney|USYD
huawei|Huawei|China|huawei|
nvidia|NVIDIA|United States|nvidia|
alibaba|Alibaba Group|China|alibaba;damo academy|
cambridge|University of Cambridge|United Kingdom|university of cambridge;cambridge university|
northeastern|Northeastern University||northeastern university|
dlr|German Aerospace Center (DLR)|Germany|german aerospace center;deutsches zentrum fur luft und raumfahrt;dlr|
freiburg|University of Freiburg|Germany|university of freiburg;albert ludwigs universitat freiburg;universitat freiburg|
ucl|University College London|United Kingdom|university college london|UCL
fudan|Fudan University|China|fudan university;fudan|
sysu|Sun Yat-sen University|China|sun yat sen university|SYSU
aist|National Institute of Advanced Industrial Science and Technology|Japan|national institute of advanced industrial science and technology|AIST
titech|Tokyo Institute of Technology|Japan|tokyo institute of technology;institute of science tokyo|Titech
purdue|Purdue University|United States|purdue university;purdue|
umn|University of Minnesota|United States|university of minnesota|UMN
edinburgh|University of Edinburgh|United Kingdom|university of edinburgh;edinburgh university|
adobe|Adobe|United States|adobe|
duke|Duke University|United States|duke university|
uts|University of Technology Sydney|Australia|university of technology sydney|UTS
nyu|New York University|United States|new york university|NYU
samsung|Samsung|South Korea|samsung|
anu|Australian National University|Australia|australian national university|ANU
mcgill|McGill University|Canada|mcgill university;mcgill|
nju|Nanjing University|China|nanjing university|
ualberta|University of Alberta|Canada|university of alberta|
bit|Beijing Institute of Technology|China|beijing institute of technology|BIT
asu|Arizona State University|United States|arizona state university|ASU
baidu|Baidu|China|baidu|
max-planck|Max Planck Society|Germany|max planck;max planck society|MPI;MPI-IS;MPII;MPI-INF
msu|Michigan State University|United States|michigan state university|
rutgers|Rutgers University|United States|rutgers university;rutgers|
bonn|University of Bonn|Germany|university of bonn;universitat bonn|
kit|Karlsruhe Institute of Technology|Germany|karlsruhe institute of technology|KIT
ntu-taiwan|National Taiwan University|Taiwan|national taiwan university|
ubc|University of British Columbia|Canada|university of british columbia|UBC
hust|Huazhong University of Science and Technology|China|huazhong university of science and technology|HUST
bupt|Beijing University of Posts and Telecommunications|China|beijing university of posts and telecommunications|BUPT
tamu|Texas A&M University|United States|texas a and m university;texas a m university|TAMU
tohoku|Tohoku University|Japan|tohoku university;university of tohoku|
uestc|University of Electronic Science and Technology of China|China|university of electronic science and technology of china|UESTC
yale|Yale University|United States|yale university|Yale
kyoto|Kyoto University|Japan|kyoto university|
umass-amherst|University of Massachusetts Amherst|United States|university of massachusetts amherst;umass amherst|
riken|RIKEN|Japan|riken|
kth|KTH Royal Institute of Technology|Sweden|kth royal institute of technology;royal institute of technology;kth|
cityu-hk|City University of Hong Kong|China|city university of hong kong|CityU
ritsumeikan|Ritsumeikan University|Japan|ritsumeikan university;ritsumeikan|
xjtu|Xi'an Jiaotong University|China|xi an jiaotong university;xi an jiao tong university;xian jiaotong university|XJTU
kist|Korea Institute of Science and Technology|South Korea|korea institute of science and technology|KIST
nudt|National University of Defense Technology|China|national university of defense technology|NUDT
qut|Queensland University of Technology|Australia|queensland university of technology|QUT
tju|Tianjin University|China|tianjin university|
uw-madison|University of Wisconsin-Madison|United States|university of wisconsin madison|University of Wisconsin
tu-delft|Delft University of Technology|Netherlands|delft university of technology;tu delft|
waterloo|University of Waterloo|Canada|university of waterloo|
skku|Sungkyunkwan University|South Korea|sungkyunkwan university|SKKU
monash|Monash University|Australia|monash university;monash|
polimi|Politecnico di Milano|Italy|politecnico di milano;polytechnic university of milan|
uci|University of California, Irvine|United States|university of california irvine;uc irvine|UCI
seu|Southeast University|China|southeast university|
bu|Boston University|United States|boston university|
adelaide|University of Adelaide|Australia|university of adelaide|
brown|Brown University|United States|brown university|
northwestern|Northwestern University|United States|northwestern university|
utah|University of Utah|United States|university of utah|
whu|Wuhan University|China|wuhan university|
uva-amsterdam|University of Amsterdam|Netherlands|university of amsterdam;universiteit van amsterdam|UvA
intel|Intel|United States|intel;intel labs;intel corporation|
pengcheng-lab|Peng Cheng Laboratory|China|pengcheng laboratory;peng cheng laboratory;pengcheng lab;peng cheng lab|
sfu|Simon Fraser University|Canada|simon fraser university|SFU
iisc|Indian Institute of Science|India|indian institute of science|IISc
iiser|Indian Institute of Science Education and Research|India|indian institute of science education and research|IISER
twente|University of Twente|Netherlands|university of twente|
dut|Dalian University of Technology|China|dalian university of technology|
rice|Rice University|United States|rice university|
korea-university|Korea University|South Korea|korea university|
technion|Technion - Israel Institute of Technology|Israel|technion;israel institute of technology|
hanyang|Hanyang University|South Korea|hanyang university|
cnrs|CNRS|France|cnrs;centre national de la recherche scientifique;french national centre for scientific research|
tu-darmstadt|Technical University of Darmstadt|Germany|technische universitat darmstadt;technical university of darmstadt;darmstadt university of technology;tu darmstadt|
nagoya|Nagoya University|Japan|nagoya university;university of nagoya|
kyushu|Kyushu University|Japan|kyushu university|
hku|University of Hong Kong|China|university of hong kong;hong kong university|HKU
eduhk|Education University of Hong Kong|China|education university of hong kong|
oregon-state|Oregon State University|United States|oregon state university|
ohio-state|Ohio State University|United States|ohio state university|
uzh|University of Zurich|Switzerland|university of zurich;universitat zurich|UZH
udel|University of Delaware|United States|university of delaware|
shanghaitech|ShanghaiTech University|China|shanghaitech university;shanghaitech|
ku-leuven|KU Leuven|Belgium|ku leuven;katholieke universiteit leuven;catholic university of leuven|
xmu|Xiamen University|China|xiamen university|
uec-tokyo|University of Electro-Communications|Japan|university of electro communications|UEC
xidian|Xidian University|China|xidian university;xidian|
ucsb|University of California, Santa Barbara|United States|university of california santa barbara;uc santa barbara|UCSB
kcl|King's College London|United Kingdom|king s college london;kings college london|KCL
unc|University of North Carolina at Chapel Hill|United States|university of north carolina at chapel hill;university of north carolina chapel hill;unc chapel hill|University of North Carolina;UNC
vanderbilt|Vanderbilt University|United States|vanderbilt university|
postech|POSTECH|South Korea|pohang university of science and technology;postech|
tau|Tel Aviv University|Israel|tel aviv university|
ttic|Toyota Technological Institute at Chicago|United States|toyota technological institute at chicago;ttic;tti chicago|
bristol|University of Bristol|United Kingdom|university of bristol|
nwpu|Northwestern Polytechnical University|China|northwestern polytechnical university|NWPU
ruc|Renmin University of China|China|renmin university of china;renmin university|
aalto|Aalto University|Finland|aalto university|
nankai|Nankai University|China|nankai university|
polyu|Hong Kong Polytechnic University|China|hong kong polytechnic university|PolyU
soochow|Soochow University||soochow university|
virginia|University of Virginia|United States|university of virginia|
rpi|Rensselaer Polytechnic Institute|United States|rensselaer polytechnic institute|RPI
virginia-tech|Virginia Tech|United States|virginia tech;virginia polytechnic institute and state university|
cwru|Case Western Reserve University|United States|case western reserve university|
tsukuba|University of Tsukuba|Japan|university of tsukuba|
ctu-prague|Czech Technical University in Prague|Czech Republic|czech technical university in prague;czech technical university|
naist|Nara Institute of Science and Technology|Japan|nara institute of science and technology|NAIST
sutd|Singapore University of Technology and Design|Singapore|singapore university of technology and design|SUTD
yonsei|Yonsei University|South Korea|yonsei university|
tongji|Tongji University|China|tongji university|
ntua|National Technical University of Athens|Greece|national technical university of athens|NTUA
sssa|Scuola Superiore Sant'Anna|Italy|scuola superiore sant anna;sant anna school of advanced studies|
ecnu|East China Normal University|China|east china normal university|ECNU
penn-state|Pennsylvania State University|United States|pennsylvania state university;penn state university;penn state|
udem|Université de Montréal|Canada|universite de montreal;university of montreal|
mila|Mila - Quebec AI Institute|Canada|mila;montreal institute for learning algorithms;quebec ai institute|
tubingen|University of Tübingen|Germany|university of tubingen;universitat tubingen;eberhard karls universitat tubingen|
notre-dame|University of Notre Dame|United States|university of notre dame|
tu-berlin|Technical University of Berlin|Germany|technische universitat berlin;technical university of berlin;technical university berlin;tu berlin|
njust|Nanjing University of Science and Technology|China|nanjing university of science and technology|NJUST
scut|South China University of Technology|China|south china university of technology|SCUT
coimbra|University of Coimbra|Portugal|university of coimbra|
sustech|Southern University of Science and Technology|China|southern university of science and technology|SUSTech
uq|University of Queensland|Australia|university of queensland|
unizar|University of Zaragoza|Spain|universidad de zaragoza;university of zaragoza|
auckland|University of Auckland|New Zealand|university of auckland|
pitt|University of Pittsburgh|United States|university of pittsburgh|
wpi|Worcester Polytechnic Institute|United States|worcester polytechnic institute|WPI
bytedance|ByteDance|China|bytedance|
mbzuai|Mohamed bin Zayed University of Artificial Intelligence|United Arab Emirates|mohamed bin zayed university of artificial intelligence;mbzuai|
ucf|University of Central Florida|United States|university of central florida|UCF
tu-graz|Graz University of Technology|Austria|graz university of technology;technische universitat graz;tu graz|
lund|Lund University|Sweden|lund university|
sensetime|SenseTime|China|sensetime|
uc-merced|University of California, Merced|United States|university of california merced;uc merced|
university-of-california-davis|University of California, Davis|United States|university of california davis;uc davis|
university-of-california-riverside|University of California, Riverside|United States|university of california riverside;uc riverside|UCR
university-of-california-santa-cruz|University of California, Santa Cruz|United States|university of california santa cruz;uc santa cruz|UCSC
university-of-california-san-francisco|University of California, San Francisco|United States|university of california san francisco;uc san francisco|UCSF
tri|Toyota Research Institute|United States|toyota research institute|
uchicago|University of Chicago|United States|university of chicago|UChicago
bjtu|Beijing Jiaotong University|China|beijing jiaotong university;beijing jiao tong university|BJTU
stony-brook|Stony Brook University|United States|stony brook university;suny stony brook|
cu-boulder|University of Colorado Boulder|United States|university of colorado boulder;university of colorado at boulder|
qmul|Queen Mary University of London|United Kingdom|queen mary university of london|QMUL
csiro|CSIRO|Australia|csiro;commonwealth scientific and industrial research organisation|
manchester|University of Manchester|United Kingdom|university of manchester|
rwth|RWTH Aachen University|Germany|rwth aachen university;rwth aachen;rwth|
openai|OpenAI|United States|openai|
apple|Apple|United States|apple inc|Apple
shanghai-ai-lab|Shanghai AI Laboratory|China|shanghai ai laboratory;shanghai artificial intelligence laboratory;shanghai ai lab;shanghai artificial intelligence lab|
lmu-munich|LMU Munich|Germany|ludwig maximilian university of munich;ludwig maximilians universitat munchen;lmu munich|LMU;University of Munich
allen-ai|Allen Institute for AI|United States|allen institute for artificial intelligence;allen institute for ai|AI2
kaust|King Abdullah University of Science and Technology|Saudi Arabia|king abdullah university of science and technology;kaust|
hebrew-university|Hebrew University of Jerusalem|Israel|hebrew university of jerusalem;hebrew university|
unsw|UNSW Sydney|Australia|university of new south wales;unsw|
melbourne|University of Melbourne|Australia|university of melbourne|
zjut|Zhejiang University of Technology|China|zhejiang university of technology|ZJUT
sdu|Shandong University|China|shandong university|SDU
heidelberg|Heidelberg University|Germany|heidelberg university;university of heidelberg|
tu-dresden|TU Dresden|Germany|technische universitat dresden;tu dresden;dresden university of technology;technical university of dresden;technical university dresden|
telecom-paris|Télécom Paris|France|telecom paris;telecom paristech|
universite-paris-saclay|Université Paris-Saclay|France|universite paris saclay;university of paris saclay;paris saclay university|
universite-grenoble-alpes|Université Grenoble Alpes|France|universite grenoble alpes;university of grenoble alpes;grenoble alpes university|
sorbonne-universite|Sorbonne Université|France|sorbonne universite;sorbonne university|
"""


@dataclass(frozen=True)
class Institution:
    """A curated institution: what the store shows for its slug."""

    slug: str
    name: str
    country: str


_JUNK = frozenset({"", "n a", "na", "none", "null", "nil", "unknown", "unknown institution",
                   "unknown affiliation", "independent", "independent researcher", "other",
                   "no affiliation", "not applicable", "tbd"})
_ABBREVIATIONS = {"univ": "university", "dept": "department", "inst": "institute",
                  "natl": "national"}
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_PARTS = re.compile(r"[,;()/]| - ")
_PARENTHESES = re.compile(r"\([^()]*\)")
_DEPARTMENT = re.compile(r"^(?:department|dept|school of|faculty|division|graduate school|"
                         r"college of|center for|centre for|key lab|state key|lab of|"
                         r"laboratory of|laboratory for|group|program|institute of [a-z]+ engineering)\b")
_INSTITUTION_WORDS = re.compile(r"\b(?:universit\w*|universidad\w*|college|institut\w*|"
                                r"polytechnic|politecnico|academy|inc|corp\w*|ltd|gmbh|company|"
                                r"research|laborator\w*|labs|hospital)\b")
# Legal-form words a company name may end with: "Sony Corporation" is Sony.
_CORPORATE_SUFFIX = re.compile(r"(?: (?:inc|incorporated|corp|corporation|co|ltd|limited|llc|"
                               r"gmbh|ag|plc|pbc|pvt|pty|pte|bv|b v|srl|s a|sa|e v|kk))+$")
# A street address: a house number then a street word ("1200 E California Blvd").
_ADDRESS = re.compile(r"^\d+[a-z]? (?:\w+ )*?(?:blvd|boulevard|street|st|avenue|ave|road|rd|"
                      r"drive|dr|way|lane|ln|parkway|pkwy|place|pl|square|sq|highway|hwy)\b"
                      r"|^(?:p ?o box|suite|room|building|bldg) \d")
# The founders' names German universities carry before the word ("Eberhard Karls Universität Tübingen").
_FOUNDERS = re.compile(r"^(?:eberhard karls|ludwig maximilians|albert ludwigs|julius maximilians|"
                       r"friedrich alexander|georg august|johannes gutenberg|ruprecht karls|"
                       r"rheinische friedrich wilhelms|westfalische wilhelms|christian albrechts|"
                       r"otto von guericke|carl von ossietzky|heinrich heine|martin luther|"
                       r"friedrich schiller|justus liebig|philipps|goethe|johannes kepler|leibniz) "
                       r"(?=universit\w* \w)")
# "University Tübingen", "Universidad de Zaragoza", "Università degli Studi di Milano":
# a university named by a place of one or two words is "University of <place>", in the
# languages of the data.
_NOT_A_PLACE = (r"(?!(?:of|at|in|college|hospital|medical|school|center|centre|clinic|institute|library|"
                r"press|park|campus|health|system|hospitals|medicine|research)\b)")
_UNIVERSITY_OF_PLACE = re.compile(
    r"^(?:(?:university|universitat|universitaet|universiteit) "
    r"(?:(?:of|zu|van|der|des|de) )?"
    r"|(?:universita|universite|universidad|universidade|universitet|uniwersytet|universiti|"
    r"universitas|universitatea) (?:of|de|di|do|da|degli studi di|w|we) )"
    + _NOT_A_PLACE + r"([a-z]+(?: [a-z]+)?)$")
# "University of Novi Sad Faculty of Sciences": the faculty after the university's name.
_TRAILING_FACULTY = re.compile(r"^(university of [a-z]+(?: [a-z]+)?) (?:faculty|department|school|"
                               r"division|college|graduate school) of .*$")
# A university system and its campus: "University of California at Davis" is the campus.
_SYSTEM_AT_CAMPUS = re.compile(r"\b(university of (?:california|texas|illinois|maryland|"
                               r"massachusetts|wisconsin|colorado|michigan|north carolina|"
                               r"minnesota|washington|missouri|nebraska|hawaii)) at\b")
# Words of institution names whose misspellings recur ("Techonology", "Acadamy",
# "Univeristy"); only a word within one edit of these, and not a real foreign form, is
# corrected.
_SPELLED = ("university", "institute", "technology", "technological", "science", "sciences",
            "academy", "laboratory", "laboratories", "research", "national", "engineering",
            "international", "polytechnic", "corporation", "chinese", "california",
            "artificial", "intelligence", "department", "southern",
            "northern", "northwestern", "northeastern", "southeast", "southwest")
_NOT_TYPOS = frozenset({"institut", "instituto", "istituto", "universita", "universite",
                        "universiti", "nationale", "nacional", "nazionale", "sciencies",
                        "technologie", "researcher", "researchers", "engineer", "nations",
                        "academic", "laboratoire", "departement", "departamento",
                        "california's", "intelligent"})


def _one_edit(word: str, target: str) -> bool:
    """True when `word` is `target` with one letter changed, added, dropped or two swapped."""
    if word == target or abs(len(word) - len(target)) > 1:
        return False
    if len(word) == len(target):
        diff = [i for i, (a, b) in enumerate(zip(word, target)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and word[diff[0]] == target[diff[1]]
                                  and word[diff[1]] == target[diff[0]])
    short, long_ = (word, target) if len(word) < len(target) else (target, word)
    i = next((k for k in range(len(short)) if short[k] != long_[k]), len(short))
    return short[i:] == long_[i + 1:]


# Every word of the curated names, to undo the German transliteration of umlauts
# ("Tuebingen", "Muenchen", "Zuerich") that anyascii does not produce ("Tübingen" → "tubingen").
_TABLE_WORDS = frozenset(_NON_ALNUM.sub(" ", anyascii(_TABLE).lower()).split())
_UMLAUT_SPELLING = re.compile(r"(?<=[aou])e")
_FOOTNOTE_MARK = re.compile(r"\d{1,2}([a-z]{4,})|([a-z]{4,})\d{1,2}")


@lru_cache(maxsize=50_000)
def _spelled(word: str) -> str:
    """The institution word a misspelled or transliterated word stands for, or the word itself."""
    if word in _TABLE_WORDS:
        return word
    marked = _FOOTNOTE_MARK.fullmatch(word)  # "Barbara1", "3Boston": footnote numbers glued on
    if marked and (marked.group(1) or marked.group(2)) in _TABLE_WORDS:
        return marked.group(1) or marked.group(2)
    if "e" in word and (plain := _UMLAUT_SPELLING.sub("", word)) in _TABLE_WORDS and len(plain) >= 4:
        return plain
    if len(word) < 6 or word in _NOT_TYPOS or word in _SPELLED:
        return word
    matches = [t for t in _SPELLED if _one_edit(word, t) and word not in (t + "s", t[:-1])]
    return matches[0] if len(matches) == 1 else word


# Accents typeset apart from their letter in PDF extractions ("T´el´ecom", "Ume ˚a",
# "Universit ¨at"): dropped with the space around them, so the word is whole again.
_SPACING_ACCENT = re.compile(r" ?[\u00b4\u00a8\u02da\u02c6\u02dc\u00b8\u02c7\u02d8\u02dd`] ?"
                             r"| ?[\u0300-\u030a\u0327] ?(?=[a-z])")
# ...or re-attached with a space before the accented letter ("Montr éal", "Universit é").
_SPLIT_ACCENT = re.compile(r"(?<=[a-z]) (?=[\u00e0-\u00ff][a-z]{0,2}\b)")
# Unicode escapes that lost their backslash in an export ("Universit u00e9 Laval").
_BARE_ESCAPE = re.compile(r" ?\\?u(00[0-9a-f]{2})", re.IGNORECASE)


@lru_cache(maxsize=200_000)
def _institution_key(text: str) -> str:
    """Lower-case ASCII words separated by single spaces, spelled one way per institution.

    "Univ." → "university", "Techonology" → "technology", "Chinese Academic of Science" →
    "chinese academy of science", "Universität Tübingen" → "university of tubingen",
    "University of California at Davis" → "university of california davis".
    """
    return _named_by_place(_institution_words(text))


def _institution_words(text: str) -> str:
    """`_institution_key` word by word only: the form a name has inside a longer string."""
    if not text.isascii():
        text = _SPLIT_ACCENT.sub("", _SPACING_ACCENT.sub("", text))
    elif "`" in text:
        text = _SPACING_ACCENT.sub("", text)
    if "u00" in text or "U00" in text:
        text = _BARE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    ascii_text = anyascii(text).lower().replace("&", " and ")
    words = _NON_ALNUM.sub(" ", ascii_text).split()
    words = [_spelled(_ABBREVIATIONS.get(w, w)) for w in words]
    words = ["academy" if w == "academic" and words[i + 1:i + 2] == ["of"] else w
             for i, w in enumerate(words)]
    if words[:1] == ["the"]:
        words = words[1:]
    folded = " ".join(words)
    return _SYSTEM_AT_CAMPUS.sub(r"\1", folded) if " at " in folded else folded


def _named_by_place(folded: str) -> str:
    """A whole name in the form "university of <place>" when it is one in another language or order."""
    if "uni" not in folded:
        return folded
    return _UNIVERSITY_OF_PLACE.sub(r"university of \1", _FOUNDERS.sub("", folded))


def _without_legal_form(folded: str) -> str:
    """A folded company name without its legal form ("sony group corporation" → "sony group")."""
    stripped = _CORPORATE_SUFFIX.sub("", folded)
    if stripped.endswith(" and"):  # "JPMorgan Chase & Co."
        stripped = stripped[:-4]
    return stripped if stripped else folded


def _load_table() -> tuple[MappingProxyType, MappingProxyType, MappingProxyType, re.Pattern[str]]:
    """Parse `_TABLE` into: slug → Institution, exact form → slug, full name → slug, search regex."""
    institutions: dict[str, Institution] = {}
    exact: dict[str, str] = {}
    searchable: dict[str, str] = {}
    for line in _TABLE.strip().splitlines():
        slug, name, country, names, forms = line.split("|")
        institutions[slug] = Institution(slug, name, country)
        for full in filter(None, names.split(";")):
            for folded in (_institution_key(full), _institution_words(full)):  # "universite de montreal" as well
                searchable[folded] = slug
                exact[folded] = slug
        for form in filter(None, forms.split(";") + [name]):
            exact[_institution_key(form)] = slug
    ordered = sorted(searchable, key=len, reverse=True)
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in ordered) + r")\b")
    return (MappingProxyType(institutions), MappingProxyType(exact),
            MappingProxyType(searchable), pattern)


_INSTITUTIONS, _EXACT, _SEARCH_SLUG, _SEARCH = _load_table()
# Names written as one word ("GoogleDeepMind", "GoogleAI"): the exact forms without spaces.
_COMPACT = MappingProxyType({form.replace(" ", ""): slug for form, slug in _EXACT.items()
                             if len(form.replace(" ", "")) >= 4})
_COMPACT_SUFFIX = re.compile(r"(?:ai|research|labs?|inc)$")

KNOWN_INSTITUTIONS: MappingProxyType = _INSTITUTIONS
"""slug → `Institution` for every curated slug; the store reads names and countries here."""


def resolve_affiliation(raw: str, norm: str = "", abbr: str = "", country: str = "") -> Affiliation:
    """The `Affiliation` of one author slot: raw string kept, slug/name/country resolved.

    `norm`, `abbr` and `country` are the paperlists `aff_unique_*` values of the slot when
    known. The country given wins over the table's (a Google author in London is in the
    United Kingdom). Junk ("", "-", "N/A", "Unknown") gives an empty slug.
    """
    raw_text = _unescape(raw).strip() if isinstance(raw, str) else ""
    norm = _unescape(norm) if isinstance(norm, str) else ""
    slug, name, table_country = _resolve(raw_text, norm, abbr if isinstance(abbr, str) else "")
    given = country.strip() if isinstance(country, str) else ""
    return Affiliation(raw=raw_text or (norm or "").strip(), slug=slug, name=name,
                       country=(given or table_country) if slug else given)


def _unescape(text: str) -> str:
    """HTML entities decoded, twice escaped ones too ("Queen&amp;#x27;s" → "Queen's")."""
    once = html.unescape(text)
    return html.unescape(once) if "&" in once else once


def institution_info(slug: str) -> Institution | None:
    """The curated record of a slug, or None for a generic (uncurated) slug."""
    return _INSTITUTIONS.get(slug)


def institution_display(slug: str) -> str:
    """The display name of a slug; generic slugs are turned back into words.

    For generic slugs the store should prefer the `Affiliation.name` it has seen, which
    keeps the original capitalisation; this is the fallback.
    """
    known = _INSTITUTIONS.get(slug)
    if known:
        return known.name
    return " ".join(w.capitalize() for w in slug.split("-"))


@lru_cache(maxsize=100_000)
def _resolve(raw: str, norm: str, abbr: str) -> tuple[str, str, str]:
    """(slug, name, table country) for one raw/normalised/abbreviated triple."""
    norm_folded = _institution_key(norm.strip())
    if norm_folded and norm_folded not in _JUNK and not norm_folded.isdigit():
        slug = (_exact(norm_folded) or _search(_split(norm)) or _compact(norm_folded)
                or _EXACT.get(_institution_key(abbr)))
        if not slug:
            # A norm cut at the campus comma ("University of California") names the
            # system; the raw string of the slot may still name the campus.
            from_raw = _curated_in_raw(raw) if raw else ""
            if from_raw and _institution_key(_INSTITUTIONS[from_raw].name).startswith(norm_folded):
                slug = from_raw
        if slug:
            return _curated(slug)
        plain_norm = _PARENTHESES.sub(" ", norm)  # "... de Toulouse (IRIT)"
        return _generic_slug(_institution_key(plain_norm) or norm_folded), " ".join(norm.split()), ""
    raw_folded = _institution_key(raw)
    if raw_folded in _JUNK or not any(c.isalpha() for c in raw_folded):
        return "", "", ""
    slug = _curated_in_raw(raw)
    if slug:
        return _curated(slug)
    parts = _split(_PARENTHESES.sub(" ", raw)) or _split(raw)
    if _ADDRESS.match(_institution_key(parts[0])):
        return "", "", ""  # a postal address names no institution
    best = _institution_part(parts) or raw
    return _generic_slug(_institution_key(best)), " ".join(best.split()), ""


def _split(text: str) -> list[str]:
    """The non-empty comma/semicolon/parenthesis/slash/dash parts of a string."""
    return [p.strip() for p in _PARTS.split(text) if p.strip()]


def _curated_in_raw(raw: str) -> str:
    """The curated slug a raw string names: whole, by one of its parts, or inside a part.

    Run-together forms ("GoogleDeepMind") are the last resort: a full name inside an
    earlier part ("MIT-IBM Watson AI Lab, Boston University") comes first.
    """
    whole = _exact(_institution_key(raw))
    if whole:
        return whole
    parts = _split(raw)
    for part in parts:
        slug = _exact(_institution_key(part))
        if slug:
            return slug
    return _search(parts) or next(filter(None, (_compact(_institution_key(p)) for p in parts)), "")


def _exact(folded: str) -> str:
    """The curated slug of a whole folded name, its legal form forgiven."""
    if not folded:
        return ""
    return _EXACT.get(folded) or _EXACT.get(_without_legal_form(folded), "")


def _compact(folded: str) -> str:
    """The curated slug of a name written as one word, footnote digits and "AI"/"Research" forgiven."""
    compact = folded.replace(" ", "").strip("0123456789")  # footnote marks: "1Microsoft"
    if len(compact) < 4:
        return ""
    return _COMPACT.get(compact) or _COMPACT.get(_COMPACT_SUFFIX.sub("", compact), "")


def _search(parts: list[str]) -> str:
    """The slug of the leftmost full institution name inside the parts of a string, or "".

    A name may run on into the next part: "University of California, Los Angeles" is
    one name whose campus the comma sets off.
    """
    folded_parts = [_institution_key(p) for p in parts]
    for i, folded in enumerate(folded_parts):
        if not folded:
            continue
        text = " ".join(filter(None, [folded, folded_parts[i + 1] if i + 1 < len(parts) else ""]))
        for match in _SEARCH.finditer(text):
            if match.start() >= len(folded):
                break  # starts in the next part: that part's own turn
            found = match.group(0)
            if found.endswith("university") and text[match.end():].startswith((" of ", " at ")):
                continue  # "Tianjin University of Technology" is not Tianjin University
            if found.startswith("university") and match.start() > 0:
                continue  # "Science University of Tokyo" is not the University of Tokyo
            return _SEARCH_SLUG[found]
    return ""


def _institution_part(parts: list[str]) -> str:
    """The comma part of a raw string that names the institution, not the department."""
    candidates = [p for p in parts if not _DEPARTMENT.match(_institution_key(p)) and not _ADDRESS.match(_institution_key(p))
                  and not _CORPORATE_SUFFIX.fullmatch(" " + _institution_key(p))]
    for part in candidates:
        if _INSTITUTION_WORDS.search(_institution_key(part)):
            return part
    return candidates[0] if candidates else (parts[0] if parts else "")


def _curated(slug: str) -> tuple[str, str, str]:
    known = _INSTITUTIONS[slug]
    return known.slug, known.name, known.country


def _generic_slug(folded: str) -> str:
    """A URL-safe slug of at most ~60 characters, cut at a word boundary, legal form dropped."""
    return slugify(_TRAILING_FACULTY.sub(r"\1", _without_legal_form(folded)), max_chars=60)
