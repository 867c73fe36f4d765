/**
 * The four injection intents a model follows in any language it reads: override earlier
 * instructions, reveal the system prompt, become an assistant without rules, keep something from
 * the user. English is read by the patterns in poison.ts; this table covers the other most-spoken
 * languages (and a few more). Word order varies (Japanese, Korean, Turkish and the Indic languages
 * put the verb last), so an intent is words of its groups near one another in one sentence rather
 * than a fixed phrase. Terms are prefixes of words (inflections follow), whole substrings in the
 * scripts written without spaces, and `*` stands for any letters inside a term.
 */

interface Lexicon {
  /** ignore, forget, disregard */
  override: string[];
  /** instructions, directives, prompt: what only an injection tells a model to drop */
  target: string[];
  /** rules, restrictions: dropped in ordinary advice too, so they need a pointed scope */
  weakTarget: string[];
  /** previous, above, earlier, system, original: the instructions the model was given */
  scope: string[];
  /** all, your: pointed enough next to a strong target */
  weakScope: string[];
  /** show, reveal, print, repeat */
  reveal: string[];
  /** system prompt, your instructions, hidden instructions */
  secret: string[];
  /** you are now, act as, pretend to be */
  persona: string[];
  /** without restrictions, unrestricted, no rules, developer mode */
  unbound: string[];
  /** the negated tell, inform or hide-from verbs */
  hush: string[];
  /** the user */
  user: string[];
}

const LEXICONS: Record<string, Lexicon> = {
  es: {
    override: [
      "ignor",
      "olvid",
      "descart",
      "omit",
      "desobedec",
      "haz caso omiso",
      "hagas caso omiso",
      "no hagas caso",
      "pasa por alto",
      "deja de lado",
      "deja de seguir",
      "no sigas",
    ],
    target: ["instruccion", "indicacion", "directric", "prompt", "consigna"],
    weakTarget: ["regla", "norma", "orden", "restriccion", "limitacion", "pauta"],
    scope: [
      "anterior",
      "previa",
      "previo",
      "precedent",
      "del sistema",
      "de arriba",
      "original",
      "inicial",
      "recibid",
      "que te dieron",
      "que te han dado",
    ],
    weakScope: ["toda", "todo", "tus", "tu ", "sus "],
    reveal: ["revela", "muestra", "muestrame", "imprime", "dime", "repite", "comparte", "ensena", "divulga", "escribe", "copia"],
    secret: [
      "prompt del sistema",
      "prompt de sistema",
      "mensaje del sistema",
      "instrucciones del sistema",
      "tus instrucciones",
      "instrucciones ocultas",
      "instrucciones iniciales",
      "instrucciones originales",
      "tu prompt",
    ],
    persona: [
      "ahora eres",
      "eres ahora",
      "a partir de ahora eres",
      "desde ahora eres",
      "actua como",
      "comportate como",
      "finge",
      "haz de cuenta",
      "interpreta",
    ],
    unbound: [
      "sin restriccion",
      "sin ninguna restriccion",
      "sin regla",
      "sin limite",
      "sin filtro",
      "sin censura",
      "libre de",
      "irrestrict",
      "sin ningun tipo de",
      "modo desarrollador",
      "dan",
    ],
    hush: [
      "no le digas",
      "no digas",
      "no informes",
      "no le informes",
      "no le cuentes",
      "no cuentes",
      "no menciones",
      "no le menciones",
      "no avises",
      "no le avises",
      "no reveles",
      "sin decirle",
      "sin avisar",
      "sin informar",
      "oculta",
      "ocultale",
      "esconde",
    ],
    user: ["usuario", "cliente", "operador"],
  },
  fr: {
    override: [
      "ignor",
      "oubli",
      "ne tiens pas compte",
      "ne tenez pas compte",
      "fais abstraction",
      "faites abstraction",
      "neglig",
      "ne suis plus",
      "ne suivez plus",
      "ecarte",
    ],
    target: ["instruction", "consigne", "directive", "indication", "prompt"],
    weakTarget: ["regle", "restriction", "ordre", "limitation"],
    scope: ["precedent", "anterieur", "ci-dessus", "plus haut", "du systeme", "systeme", "initial", "originel", "original", "recu"],
    weakScope: ["toute", "tous", "tes", "vos", "ton", "votre"],
    reveal: ["revele", "affiche", "montre", "imprime", "donne-moi", "donnez-moi", "repete", "divulgue", "ecris", "recopie"],
    secret: [
      "prompt systeme",
      "prompt du systeme",
      "invite systeme",
      "message systeme",
      "tes instructions",
      "vos instructions",
      "instructions cachees",
      "instructions initiales",
      "ton prompt",
      "votre prompt",
      "consignes systeme",
    ],
    persona: [
      "tu es maintenant",
      "tu es desormais",
      "vous etes maintenant",
      "vous etes desormais",
      "desormais tu es",
      "a partir de maintenant tu es",
      "agis comme",
      "agissez comme",
      "fais semblant",
      "faites semblant",
      "joue le role",
      "incarne",
    ],
    unbound: [
      "sans restriction",
      "sans aucune restriction",
      "sans regle",
      "sans limite",
      "sans filtre",
      "sans censure",
      "libre de toute",
      "mode developpeur",
      "dan",
    ],
    hush: [
      "ne dis pas",
      "ne dis rien",
      "ne le dis pas",
      "ne dites pas",
      "ne dites rien",
      "n'informe pas",
      "n'informez pas",
      "ne previens pas",
      "ne prevenez pas",
      "ne mentionne pas",
      "ne mentionnez pas",
      "sans le dire",
      "sans prevenir",
      "sans informer",
      "cache",
      "cachez",
    ],
    user: ["utilisateur", "client", "operateur"],
  },
  pt: {
    override: ["ignor", "esquec", "esquece", "desconsider", "descart", "despreze", "deixe de lado", "nao siga", "pare de seguir"],
    target: ["instruc", "diretriz", "orientac", "prompt", "comando"],
    weakTarget: ["regra", "restric", "ordem", "ordens", "limitac"],
    scope: ["anterior", "previa", "acima", "do sistema", "original", "originais", "inicia", "recebid"],
    weakScope: ["toda", "todo", "suas", "seu ", "tuas", "teu "],
    reveal: ["revele", "revela", "mostre", "mostra", "imprima", "diga", "repita", "exiba", "divulgue", "escreva", "copie"],
    secret: [
      "prompt do sistema",
      "prompt de sistema",
      "mensagem do sistema",
      "instrucoes do sistema",
      "suas instrucoes",
      "tuas instrucoes",
      "instrucoes ocultas",
      "instrucoes iniciais",
      "instrucoes originais",
      "seu prompt",
    ],
    persona: [
      "agora voce e",
      "voce agora e",
      "a partir de agora voce e",
      "agora es",
      "aja como",
      "age como",
      "atue como",
      "finja",
      "faca de conta",
      "interprete",
    ],
    unbound: [
      "sem restric",
      "sem nenhuma restric",
      "sem regra",
      "sem limite",
      "sem filtro",
      "sem censura",
      "livre de",
      "irrestrit",
      "modo desenvolvedor",
      "dan",
    ],
    hush: [
      "nao conte",
      "nao diga",
      "nao informe",
      "nao avise",
      "nao mencione",
      "nao revele",
      "nao fale",
      "sem contar",
      "sem avisar",
      "sem informar",
      "esconda",
      "oculte",
    ],
    user: ["usuario", "utilizador", "cliente", "operador"],
  },
  it: {
    override: [
      "ignora",
      "ignori",
      "ignorare",
      "dimentica",
      "dimentichi",
      "trascura",
      "tralascia",
      "non considerare",
      "non tenere conto",
      "non seguire piu",
      "lascia perdere",
    ],
    target: ["istruzion", "direttiv", "indicazion", "prompt", "consegn"],
    weakTarget: ["regol", "restrizion", "ordin", "limitazion", "vincol"],
    scope: ["precedent", "sopra", "del sistema", "di sistema", "iniziali", "original", "ricevut", "prima"],
    weakScope: ["tutte", "tutti", "tue", "tuoi", "sue"],
    reveal: ["rivela", "mostra", "mostrami", "stampa", "dimmi", "ripeti", "svela", "scrivi", "copia"],
    secret: [
      "prompt di sistema",
      "prompt del sistema",
      "messaggio di sistema",
      "istruzioni di sistema",
      "tue istruzioni",
      "istruzioni nascoste",
      "istruzioni iniziali",
      "istruzioni originali",
      "tuo prompt",
    ],
    persona: [
      "ora sei",
      "adesso sei",
      "sei ora",
      "da ora in poi sei",
      "d'ora in poi sei",
      "comportati come",
      "agisci come",
      "fingi",
      "fai finta",
      "interpreta il ruolo",
    ],
    unbound: [
      "senza restrizion",
      "senza alcuna restrizion",
      "senza regol",
      "senza limit",
      "senza filtr",
      "senza censur",
      "libero da",
      "modalita sviluppatore",
      "dan",
    ],
    hush: [
      "non dire",
      "non dirlo",
      "non dirgli",
      "non informare",
      "non avvisare",
      "non menzionare",
      "non rivelare",
      "senza dire",
      "senza avvisare",
      "senza informare",
      "nascondi",
    ],
    user: ["utente", "cliente", "operatore"],
  },
  de: {
    override: [
      "ignorier",
      "vergiss",
      "vergessen sie",
      "missacht",
      "verwirf",
      "verwerfen",
      "setze * ausser kraft",
      "befolge * nicht",
      "beachte * nicht",
    ],
    target: ["anweisung", "instruktion", "vorgabe", "richtlinie", "prompt", "systemprompt", "befehl"],
    weakTarget: ["regel", "einschrankung", "beschrankung", "anordnung"],
    scope: ["vorherig", "bisherig", "obig", "vorig", "fruher", "system", "ursprunglich", "erhalten"],
    weakScope: ["alle", "deine", "ihre", "samtliche"],
    reveal: ["zeig", "gib * aus", "verrat", "offenbar", "druck", "wiederhol", "nenne", "schreib", "kopier"],
    secret: [
      "systemprompt",
      "system-prompt",
      "systemnachricht",
      "systemanweisung",
      "deine anweisungen",
      "deine instruktionen",
      "versteckten anweisungen",
      "ursprunglichen anweisungen",
      "dein prompt",
      "deinen prompt",
    ],
    persona: [
      "du bist jetzt",
      "du bist nun",
      "du bist ab sofort",
      "ab jetzt bist du",
      "ab sofort bist du",
      "von nun an bist du",
      "handle als",
      "verhalte dich wie",
      "tu so als",
      "gib dich als",
      "spiel die rolle",
    ],
    unbound: [
      "ohne einschrankung",
      "ohne jegliche einschrankung",
      "ohne regel",
      "ohne grenze",
      "ohne filter",
      "ohne zensur",
      "uneingeschrankt",
      "entwicklermodus",
      "dan",
    ],
    hush: [
      "sag * nicht",
      "sage * nicht",
      "erzahl * nicht",
      "informiere * nicht",
      "benachrichtige * nicht",
      "erwahne * nicht",
      "ohne * zu informieren",
      "ohne * zu sagen",
      "verschweig",
      "verheimlich",
    ],
    user: ["nutzer", "benutzer", "anwender", "kunde", "kunden"],
  },
  nl: {
    override: ["negeer", "vergeet", "sla * over", "volg * niet"],
    target: ["instructie", "aanwijzing", "prompt", "richtlijn"],
    weakTarget: ["regel", "beperking"],
    scope: ["vorige", "eerdere", "bovenstaande", "systeem", "oorspronkelijke"],
    weakScope: ["alle", "je ", "jouw"],
    reveal: ["toon", "laat * zien", "onthul", "print", "herhaal"],
    secret: ["systeemprompt", "je instructies", "jouw instructies", "verborgen instructies"],
    persona: ["je bent nu", "vanaf nu ben je", "doe alsof", "gedraag je als", "speel de rol"],
    unbound: ["zonder beperking", "zonder regels", "zonder filter", "zonder censuur", "onbeperkt", "dan"],
    hush: ["vertel * niet", "zeg * niet", "informeer * niet", "verzwijg"],
    user: ["gebruiker", "klant"],
  },
  ru: {
    override: [
      "игнорир",
      "проигнорир",
      "забудь",
      "забудьте",
      "забыть",
      "не обращай внимания",
      "не обращайте внимания",
      "отбрось",
      "пренебреги",
      "не следуй",
      "не выполняй",
    ],
    target: ["инструкци", "указани", "промпт", "директив", "предписани"],
    weakTarget: ["правил", "ограничени", "команд"],
    scope: ["предыдущ", "прежн", "систем", "выше", "ранее", "изначальн", "исходн", "полученн"],
    weakScope: ["все", "свои", "твои", "ваши"],
    reveal: ["покажи", "покажите", "выведи", "выведите", "раскрой", "напиши", "повтори", "сообщи", "расскажи", "распечатай"],
    secret: [
      "системн* промпт",
      "системн* подсказ",
      "системн* инструкци",
      "свои инструкции",
      "твои инструкции",
      "скрыт* инструкци",
      "исходн* инструкци",
    ],
    persona: [
      "теперь ты",
      "ты теперь",
      "отныне ты",
      "с этого момента ты",
      "веди себя как",
      "действуй как",
      "притворись",
      "представь, что ты",
      "играй роль",
    ],
    unbound: [
      "без ограничени",
      "без каких-либо ограничени",
      "без правил",
      "без фильтр",
      "без цензур",
      "неограниченн",
      "режим разработчика",
      "dan",
    ],
    hush: [
      "не говори",
      "не сообщай",
      "не рассказывай",
      "не упоминай",
      "не показывай",
      "не говорите",
      "не сообщайте",
      "без ведома",
      "скрой",
      "утаи",
    ],
    user: ["пользовател", "клиент", "оператор"],
  },
  uk: {
    override: ["ігноруй", "проігноруй", "забудь", "не зважай", "не виконуй"],
    target: ["інструкці", "вказівк", "промпт", "директив"],
    weakTarget: ["правил", "обмежен"],
    scope: ["попередн", "систем", "вище", "раніше", "початков"],
    weakScope: ["всі", "усі", "свої", "твої"],
    reveal: ["покажи", "виведи", "розкрий", "напиши", "повтори"],
    secret: ["системн* промпт", "системн* інструкці", "свої інструкції", "твої інструкції", "приховані інструкції"],
    persona: ["тепер ти", "ти тепер", "відтепер ти", "поводься як", "прикинься"],
    unbound: ["без обмежен", "без правил", "без фільтр", "без цензур", "dan"],
    hush: ["не кажи", "не повідомляй", "не розповідай", "приховай"],
    user: ["користувач", "клієнт"],
  },
  pl: {
    override: [
      "zignoruj",
      "ignoruj",
      "zapomnij",
      "pomin",
      "nie zwracaj uwagi",
      "odrzuc",
      "zlekcewaz",
      "nie stosuj sie",
      "nie przestrzegaj",
    ],
    target: ["instrukcj", "polecen", "wytyczn", "prompt", "dyrektyw"],
    weakTarget: ["zasad", "regul", "ograniczen"],
    scope: ["poprzedni", "wczesniejsz", "powyzsz", "systemow", "pierwotn", "otrzyman"],
    weakScope: ["wszystk", "swoje", "twoje"],
    reveal: ["pokaz", "ujawnij", "wypisz", "powtorz", "podaj", "wyswietl", "zdradz", "napisz"],
    secret: [
      "prompt systemow",
      "polecenie systemowe",
      "instrukcje systemowe",
      "swoje instrukcje",
      "twoje instrukcje",
      "ukryte instrukcje",
      "swoj prompt",
    ],
    persona: ["teraz jestes", "od teraz jestes", "od tej chwili jestes", "udawaj", "zachowuj sie jak", "dzialaj jak", "wciel sie"],
    unbound: [
      "bez ograniczen",
      "bez zadnych ograniczen",
      "bez zasad",
      "bez regul",
      "bez filtr",
      "bez cenzury",
      "nieograniczon",
      "tryb dewelopera",
      "dan",
    ],
    hush: ["nie mow", "nie informuj", "nie wspominaj", "nie powiadamiaj", "nie zdradzaj", "bez wiedzy", "ukryj"],
    user: ["uzytkownik", "klient", "operator"],
  },
  tr: {
    override: ["yok say", "gormezden gel", "unut", "dikkate alma", "ihmal et", "bos ver", "uyma"],
    target: ["talimat", "yonerge", "istem", "prompt", "direktif"],
    weakTarget: ["kural", "kisitlama", "komut", "emir"],
    scope: ["onceki", "yukaridaki", "sistem", "ilk", "orijinal", "verilen", "daha once"],
    weakScope: ["tum", "butun", "hepsi"],
    reveal: ["goster", "yazdir", "acikla", "soyle", "tekrarla", "paylas", "ifsa et", "yaz"],
    secret: ["sistem istem", "sistem prompt", "sistem mesaj", "sistem talimat", "talimatlarini", "gizli talimat", "ilk talimat"],
    persona: [
      "artik sen",
      "sen artik",
      "bundan sonra sen",
      "gibi davran",
      "rol yap",
      "oldugunu varsay",
      "rolune gir",
      "yapay zeka",
      "asistan",
    ],
    unbound: [
      "kisitlamasiz",
      "kuralsiz",
      "sinirsiz",
      "filtresiz",
      "sansursuz",
      "hicbir kisitla",
      "hicbir kural",
      "gelistirici modu",
      "dan",
    ],
    hush: ["soyleme", "bahsetme", "haber verme", "bildirme", "gosterme", "soylemeden", "haber vermeden", "gizle"],
    user: ["kullanici", "musteri", "operator"],
  },
  id: {
    override: ["abaikan", "lupakan", "acuhkan", "jangan ikuti", "jangan patuhi", "tinggalkan", "kesampingkan"],
    target: ["instruksi", "petunjuk", "arahan", "prompt", "pedoman", "perintah"],
    weakTarget: ["aturan", "batasan", "larangan"],
    scope: ["sebelum", "di atas", "sistem", "awal", "asli", "yang diberikan"],
    weakScope: ["semua", "seluruh", "kamu", "anda"],
    reveal: ["tunjukkan", "tampilkan", "ungkapkan", "bocorkan", "cetak", "ulangi", "beritahu", "beri tahu", "tuliskan", "salin"],
    secret: [
      "prompt sistem",
      "pesan sistem",
      "instruksi sistem",
      "instruksimu",
      "instruksi kamu",
      "instruksi anda",
      "instruksi tersembunyi",
      "instruksi awal",
    ],
    persona: [
      "sekarang kamu",
      "sekarang anda",
      "mulai sekarang kamu",
      "mulai sekarang anda",
      "bertindaklah sebagai",
      "bertindak sebagai",
      "berpura-pura",
      "berperan sebagai",
      "anggap dirimu",
    ],
    unbound: ["tanpa batasan", "tanpa aturan", "tanpa filter", "tanpa sensor", "tanpa batas", "tidak terbatas", "mode pengembang", "dan"],
    hush: [
      "jangan beritahu",
      "jangan beri tahu",
      "jangan memberitahu",
      "jangan kasih tahu",
      "jangan bilang",
      "jangan informasikan",
      "tanpa memberitahu",
      "tanpa sepengetahuan",
      "sembunyikan",
      "rahasiakan",
    ],
    user: ["pengguna", "pelanggan", "operator"],
  },
  vi: {
    override: ["bo qua", "phot lo", "quen", "khong tuan theo", "dung tuan theo", "gat bo", "bat ke", "khong lam theo", "dung lam theo"],
    target: ["huong dan", "chi dan", "chi thi", "loi nhac", "prompt", "nguyen tac"],
    weakTarget: ["quy tac", "lenh", "han che", "gioi han"],
    scope: ["truoc", "o tren", "phia tren", "he thong", "ban dau", "goc", "da nhan"],
    weakScope: ["tat ca", "moi", "cua ban"],
    reveal: ["tiet lo", "hien thi", "in ra", "cho toi xem", "cho toi biet", "lap lai", "noi ra", "viet ra", "sao chep"],
    secret: [
      "loi nhac he thong",
      "prompt he thong",
      "huong dan he thong",
      "chi dan he thong",
      "thong diep he thong",
      "huong dan cua ban",
      "chi dan cua ban",
      "huong dan an",
      "huong dan ban dau",
    ],
    persona: ["bay gio ban la", "tu gio ban la", "tu bay gio ban la", "hay dong vai", "dong vai", "gia vo", "hanh dong nhu", "hay la"],
    unbound: [
      "khong co gioi han",
      "khong gioi han",
      "khong co bat ky gioi han",
      "khong co quy tac",
      "khong co rang buoc",
      "khong bi kiem duyet",
      "khong co bo loc",
      "che do nha phat trien",
      "dan",
    ],
    hush: [
      "dung noi",
      "dung bao",
      "dung tiet lo",
      "dung thong bao",
      "khong duoc noi",
      "khong duoc bao",
      "dung cho * biet",
      "khong cho * biet",
      "giau",
      "ma khong bao",
    ],
    user: ["nguoi dung", "khach hang"],
  },
  sw: {
    override: ["puuza", "sahau", "usifuate", "acha kufuata", "achana na"],
    target: ["maagizo", "maelekezo", "maelezo", "prompt"],
    weakTarget: ["sheria", "kanuni", "amri", "vikwazo"],
    scope: ["yaliyotangulia", "ya awali", "za awali", "ya hapo awali", "hapo juu", "ya mfumo", "za mfumo", "uliyopewa"],
    weakScope: ["yote", "zote", "yako", "zako"],
    reveal: ["onyesha", "fichua", "toa", "rudia", "niambie", "andika"],
    secret: ["maagizo ya mfumo", "maelekezo ya mfumo", "prompt ya mfumo", "maagizo yako", "maelekezo yako", "maagizo yaliyofichwa"],
    persona: ["sasa wewe ni", "kuanzia sasa wewe ni", "jifanye", "tenda kama", "igiza kama", "fanya kama"],
    unbound: ["bila vikwazo", "bila sheria", "bila mipaka", "bila kikomo", "bila vichujio", "bila udhibiti", "dan"],
    hush: ["usimwambie", "usimjulishe", "usiwaambie", "bila kumwambia", "bila kumjulisha", "mfiche", "ficha"],
    user: ["mtumiaji", "watumiaji", "mteja"],
  },
  ar: {
    override: ["تجاهل", "انس", "انسى", "اهمل", "تخط", "لا تتبع", "لا تلتزم", "تغاض", "تناس"],
    target: ["تعليمات", "التعليمات", "ارشادات", "الارشادات", "توجيهات", "التوجيهات", "الموجه", "موجه"],
    weakTarget: ["الاوامر", "اوامر", "القواعد", "قواعد", "القيود"],
    scope: ["السابق", "اعلاه", "النظام", "الاصلي", "الاولي", "التي تلقيتها", "المعطاة"],
    weakScope: ["جميع", "كل", "الخاصة بك"],
    reveal: ["اكشف", "اظهر", "اعرض", "اطبع", "اخبرني", "كرر", "افصح", "اكتب", "انسخ"],
    secret: ["موجه النظام", "تعليمات النظام", "رسالة النظام", "تعليماتك", "التعليمات المخفية", "التعليمات الاولية", "التعليمات الاصلية"],
    persona: ["انت الان", "من الان انت", "من الان فصاعدا انت", "تصرف ك", "تصرف مثل", "تظاهر", "العب دور", "تقمص"],
    unbound: [
      "بلا قيود",
      "بدون قيود",
      "بدون اي قيود",
      "بلا اي قيود",
      "بدون قواعد",
      "بلا قواعد",
      "بدون حدود",
      "بلا حدود",
      "بدون رقابة",
      "غير مقيد",
      "وضع المطور",
      "dan",
    ],
    hush: [
      "لا تخبر",
      "لا تعلم",
      "لا تبلغ",
      "لا تذكر",
      "لا تقل",
      "لا تطلع",
      "دون علم",
      "دون اخبار",
      "بدون اخبار",
      "دون ابلاغ",
      "اخف",
      "اخفي",
    ],
    user: ["المستخدم", "مستخدم", "العميل"],
  },
  fa: {
    override: ["نادیده بگیر", "فراموش کن", "اعتنا نکن", "پیروی نکن"],
    target: ["دستورالعمل", "دستورات", "راهنمایی", "پرامپت"],
    weakTarget: ["قوانین", "محدودیت"],
    scope: ["قبلی", "پیشین", "بالا", "سیستم", "اولیه"],
    weakScope: ["همه", "تمام", "خودت"],
    reveal: ["نشان بده", "فاش کن", "چاپ کن", "بگو", "تکرار کن"],
    secret: ["پرامپت سیستم", "دستورات سیستم", "دستورالعمل های سیستم", "دستورات خودت", "دستورات پنهان"],
    persona: ["اکنون تو", "از حالا تو", "تو اکنون", "وانمود کن", "نقش * را بازی کن", "مانند * رفتار کن"],
    unbound: ["بدون محدودیت", "بی محدودیت", "بدون قانون", "بدون فیلتر", "بدون سانسور", "dan"],
    hush: ["به کاربر نگو", "نگو", "اطلاع نده", "پنهان کن"],
    user: ["کاربر"],
  },
  ur: {
    override: ["نظر انداز", "نظرانداز", "بھول جاؤ", "بھول جائیں", "بھول جا", "مت مانو", "نہ مانیں", "پیروی نہ"],
    target: ["ہدایات", "ہدایت", "پرامپٹ", "احکامات"],
    weakTarget: ["قواعد", "اصول", "پابندی"],
    scope: ["پچھلی", "پچھلے", "سابقہ", "اوپر", "سسٹم", "اصل", "ابتدائی"],
    weakScope: ["تمام", "سب", "اپنی"],
    reveal: ["دکھاؤ", "دکھائیں", "بتاؤ", "بتائیں", "ظاہر کرو", "ظاہر کریں", "افشا", "دہراؤ", "لکھو"],
    secret: ["سسٹم پرامپٹ", "سسٹم کی ہدایات", "اپنی ہدایات", "خفیہ ہدایات", "ابتدائی ہدایات"],
    persona: ["اب تم", "اب آپ", "تم اب", "کی طرح برتاؤ", "ہونے کا ڈرامہ", "کا کردار ادا"],
    unbound: ["بغیر کسی پابندی", "پابندی کے بغیر", "پابندیوں کے بغیر", "بغیر پابندی", "بغیر کسی اصول", "بغیر فلٹر", "لامحدود", "dan"],
    hush: ["مت بتاؤ", "مت بتانا", "نہ بتائیں", "مت بتائیں", "نہ بتاؤ", "مطلع نہ", "چھپاؤ", "چھپائیں"],
    user: ["صارف", "یوزر"],
  },
  hi: {
    override: ["अनदेखा", "नज़रअंदाज़", "नजरअंदाज", "भूल जा", "भूलो", "उपेक्षा", "मत मानो", "न मानें", "पालन मत", "पालन न"],
    target: ["निर्देश", "प्रॉम्प्ट", "प्रोम्प्ट", "दिशानिर्देश", "हिदायत"],
    weakTarget: ["नियम", "आदेश", "प्रतिबंध"],
    scope: ["पिछल", "पहले", "ऊपर", "सिस्टम", "मूल", "प्रारंभिक", "शुरुआती"],
    weakScope: ["सभी", "सारे", "अपने", "तुम्हारे"],
    reveal: ["दिखाओ", "दिखाएं", "दिखाइए", "बताओ", "बताएं", "प्रकट", "उजागर", "दोहराओ", "लिखो", "छापो"],
    secret: ["सिस्टम प्रॉम्प्ट", "सिस्टम प्रोम्प्ट", "सिस्टम निर्देश", "अपने निर्देश", "तुम्हारे निर्देश", "छिपे निर्देश", "छुपे हुए निर्देश", "प्रारंभिक निर्देश"],
    persona: ["अब तुम", "अब आप", "तुम अब", "आप अब", "की तरह व्यवहार", "होने का नाटक", "का किरदार", "की भूमिका निभा"],
    unbound: [
      "बिना किसी प्रतिबंध",
      "प्रतिबंध के बिना",
      "बिना प्रतिबंध",
      "बिना किसी नियम",
      "बिना नियम",
      "बिना किसी सीमा",
      "बिना फ़िल्टर",
      "बिना फिल्टर",
      "असीमित",
      "dan",
    ],
    hush: ["मत बताओ", "मत बताना", "न बताएं", "मत बताएं", "मत बताइए", "सूचित न", "सूचित मत", "छिपाओ", "छिपाएं"],
    user: ["उपयोगकर्ता", "यूज़र", "यूजर", "प्रयोक्ता", "ग्राहक"],
  },
  bn: {
    override: ["উপেক্ষা", "অগ্রাহ্য", "ভুলে যাও", "ভুলে যান", "ভুলে যা", "মেনো না", "মানবে না", "মানবেন না"],
    target: ["নির্দেশ", "প্রম্পট"],
    weakTarget: ["নিয়ম", "আদেশ", "বিধিনিষেধ"],
    scope: ["পূর্ববর্তী", "আগের", "পূর্বের", "উপরের", "সিস্টেম", "মূল", "প্রাথমিক"],
    weakScope: ["সমস্ত", "সব", "তোমার", "আপনার"],
    reveal: ["দেখাও", "দেখান", "প্রকাশ", "বলো", "বলুন", "ফাঁস", "লেখো", "পুনরাবৃত্তি"],
    secret: ["সিস্টেম প্রম্পট", "সিস্টেম নির্দেশ", "তোমার নির্দেশ", "আপনার নির্দেশ", "গোপন নির্দেশ", "প্রাথমিক নির্দেশ"],
    persona: ["এখন তুমি", "এখন আপনি", "তুমি এখন", "আপনি এখন", "এখন থেকে তুমি", "মতো আচরণ", "ভান কর", "ভূমিকায় অভিনয়"],
    unbound: ["বিধিনিষেধ ছাড়া", "কোনো বিধিনিষেধ", "নিয়ম ছাড়া", "কোনো নিয়ম", "সীমাহীন", "সীমা ছাড়া", "ফিল্টার ছাড়া", "dan"],
    hush: ["বলবে না", "বলো না", "বলবেন না", "জানাবে না", "জানাবেন না", "জানিও না", "না জানিয়ে", "লুকাও", "লুকিয়ে রাখো"],
    user: ["ব্যবহারকারী", "গ্রাহক"],
  },
  mr: {
    override: ["दुर्लक्ष", "विसरून जा", "विसर", "पाळू नको", "पाळू नका"],
    target: ["सूचना", "प्रॉम्प्ट", "निर्देश"],
    weakTarget: ["नियम", "आदेश", "निर्बंध"],
    scope: ["मागील", "आधीच्या", "पूर्वीच्या", "वरील", "सिस्टम", "मूळ"],
    weakScope: ["सर्व", "तुझ्या", "तुमच्या"],
    reveal: ["दाखव", "सांग", "उघड", "लिही", "पुन्हा"],
    secret: ["सिस्टम प्रॉम्प्ट", "सिस्टम सूचना", "तुझ्या सूचना", "तुमच्या सूचना", "लपवलेल्या सूचना"],
    persona: ["आता तू", "आता तुम्ही", "तू आता", "असल्याचे नाटक", "सारखे वाग", "ची भूमिका"],
    unbound: ["निर्बंधांशिवाय", "नियमांशिवाय", "कोणत्याही निर्बंध", "कोणतेही निर्बंध नस", "मर्यादेशिवाय", "अमर्याद", "dan"],
    hush: ["सांगू नकोस", "सांगू नका", "कळवू नका", "कळवू नकोस", "लपव"],
    user: ["वापरकर्त", "ग्राहक"],
  },
  te: {
    override: ["విస్మరించ", "పట్టించుకోక", "పట్టించుకోవద్దు", "మర్చిపో", "మరచిపో", "పాటించక", "పాటించవద్దు"],
    target: ["సూచన", "ప్రాంప్ట్", "ఆదేశ"],
    weakTarget: ["నియమ", "నిబంధన", "పరిమితి"],
    scope: ["మునుపటి", "ముందు", "పైన", "సిస్టమ్", "అసలు", "ప్రారంభ"],
    weakScope: ["అన్ని", "నీ ", "మీ "],
    reveal: ["చూపించ", "చూపండి", "బయటపెట్ట", "చెప్పు", "చెప్పండి", "వెల్లడించ", "రాయి"],
    secret: ["సిస్టమ్ ప్రాంప్ట్", "సిస్టమ్ సూచన", "నీ సూచన", "మీ సూచన", "దాచిన సూచన"],
    persona: ["ఇప్పుడు నువ్వు", "ఇప్పుడు మీరు", "నువ్వు ఇప్పుడు", "లాగా ప్రవర్తించ", "లా నటించ", "పాత్ర పోషించ"],
    unbound: ["పరిమితులు లేని", "ఎలాంటి పరిమితు", "నియమాలు లేని", "ఎలాంటి నియమా", "నిబంధనలు లేని", "అపరిమిత", "dan"],
    hush: ["చెప్పకు", "చెప్పవద్దు", "చెప్పొద్దు", "తెలియజేయవద్దు", "తెలియజేయకు", "దాచు", "దాచండి"],
    user: ["వినియోగదారు", "యూజర్"],
  },
  ta: {
    override: ["புறக்கணி", "மறந்துவிடு", "மறந்து விடு", "மறந்துவிடுங்கள்", "பின்பற்றாதே", "பின்பற்ற வேண்டாம்"],
    target: ["அறிவுறுத்தல்", "அறிவுரை", "வழிமுறை", "ப்ராம்ப்ட்", "ப்ராம்ட்", "கட்டளை"],
    weakTarget: ["விதி", "கட்டுப்பாடு"],
    scope: ["முந்தைய", "முன்பு", "மேலே", "சிஸ்டம்", "கணினி", "அசல்", "ஆரம்ப"],
    weakScope: ["அனைத்து", "எல்லா", "உன் ", "உங்கள்"],
    reveal: ["காட்டு", "காட்டவும்", "வெளிப்படுத்து", "சொல்", "கூறு", "அச்சிடு", "எழுது"],
    secret: ["சிஸ்டம் ப்ராம்ப்ட்", "சிஸ்டம் ப்ராம்ட்", "கணினி அறிவுறுத்தல்", "உன் அறிவுறுத்தல்", "உங்கள் அறிவுறுத்தல்", "மறைக்கப்பட்ட அறிவுறுத்தல்"],
    persona: ["இப்போது நீ", "இனி நீ", "நீ இப்போது", "போல நடி", "போல் நடி", "போல நடந்து", "போல் நடந்து", "பாத்திரத்தில்"],
    unbound: ["கட்டுப்பாடு* இல்லா", "எந்தக் கட்டுப்பாடு", "எந்த கட்டுப்பாடு", "விதிகள் இல்லா", "கட்டுப்பாடற்ற", "வரம்பற்ற", "dan"],
    hush: ["சொல்லாதே", "கூறாதே", "சொல்ல வேண்டாம்", "தெரிவிக்காதே", "தெரிவிக்க வேண்டாம்", "மறைத்து வை", "மறை"],
    user: ["பயனர்", "வாடிக்கையாளர்"],
  },
  zh: {
    override: [
      "忽略",
      "无视",
      "無視",
      "忽视",
      "忽視",
      "忘记",
      "忘記",
      "忘掉",
      "不要理会",
      "不要理會",
      "别管",
      "抛开",
      "拋開",
      "不再遵守",
      "不要遵守",
      "不用遵守",
    ],
    target: ["指令", "指示", "提示词", "提示詞", "系统提示", "系統提示", "说明", "說明"],
    weakTarget: ["规则", "規則", "限制", "要求", "设定", "設定"],
    scope: ["之前", "以上", "先前", "前面", "上面", "此前", "原来", "原來", "原有", "系统", "系統", "最初"],
    weakScope: ["所有", "全部", "一切", "你的"],
    reveal: [
      "显示",
      "顯示",
      "展示",
      "输出",
      "輸出",
      "打印",
      "告诉我",
      "告訴我",
      "透露",
      "泄露",
      "洩露",
      "重复",
      "重複",
      "说出",
      "說出",
      "写出",
      "寫出",
    ],
    secret: [
      "系统提示",
      "系統提示",
      "提示词",
      "提示詞",
      "系统指令",
      "系統指令",
      "你的指令",
      "你的提示",
      "初始指令",
      "隐藏指令",
      "隱藏指令",
      "系统消息",
      "系統訊息",
    ],
    persona: [
      "你现在是",
      "你現在是",
      "现在你是",
      "現在你是",
      "从现在开始你是",
      "從現在開始你是",
      "从现在起你是",
      "你将是",
      "你將是",
      "扮演",
      "假装",
      "假裝",
    ],
    unbound: [
      "没有任何限制",
      "沒有任何限制",
      "没有限制",
      "沒有限制",
      "不受任何限制",
      "不受限制",
      "无限制",
      "無限制",
      "不受约束",
      "不受約束",
      "没有规则",
      "沒有規則",
      "不受规则",
      "开发者模式",
      "開發者模式",
      "dan",
    ],
    hush: [
      "不要告诉",
      "不要告訴",
      "别告诉",
      "別告訴",
      "不要让*知道",
      "不要讓*知道",
      "不要通知",
      "隐瞒",
      "隱瞞",
      "瞒着",
      "瞞著",
      "不要向*透露",
    ],
    user: ["用户", "用戶", "使用者"],
  },
  ja: {
    override: ["無視", "忘れ", "従わな", "破棄"],
    target: ["指示", "プロンプト", "指令", "命令"],
    weakTarget: ["ルール", "規則", "制約", "設定", "制限"],
    scope: ["以前", "これまで", "今まで", "上記", "前の", "先の", "先ほど", "システム", "元の", "最初の", "与えられた"],
    weakScope: ["すべて", "全て", "全部", "あなたの"],
    reveal: ["表示", "見せ", "教え", "出力", "開示", "明かし", "繰り返", "書き出"],
    secret: [
      "システムプロンプト",
      "システム指示",
      "システムメッセージ",
      "あなたの指示",
      "隠された指示",
      "初期指示",
      "元の指示",
      "あなたのプロンプト",
    ],
    persona: ["あなたは今から", "今からあなたは", "これからあなたは", "あなたはもう", "として振る舞", "のふりをし", "を演じ", "になりきっ"],
    unbound: [
      "制限のない",
      "制限なし",
      "制限なく",
      "制約のない",
      "制約なし",
      "ルールのない",
      "ルールなし",
      "無制限",
      "開発者モード",
      "dan",
    ],
    hush: ["言わないで", "伝えないで", "知らせないで", "教えないで", "言うな", "話さないで", "内緒", "隠し"],
    user: ["ユーザー", "ユーザ", "利用者", "お客様"],
  },
  ko: {
    override: ["무시", "잊어", "잊고", "잊으", "따르지 마", "따르지 말"],
    target: ["지시", "지침", "프롬프트", "명령"],
    weakTarget: ["규칙", "제한", "설정", "규정"],
    scope: ["이전", "위의", "앞의", "앞서", "시스템", "원래", "기존", "처음", "받은"],
    weakScope: ["모든", "전부", "너의", "당신의"],
    reveal: ["보여", "출력", "공개", "알려", "말해", "반복", "밝혀", "적어"],
    secret: ["시스템 프롬프트", "시스템 지시", "시스템 메시지", "너의 지시", "당신의 지시", "숨겨진 지시", "초기 지시", "너의 프롬프트"],
    persona: [
      "이제부터 너는",
      "지금부터 너는",
      "이제 너는",
      "너는 이제",
      "이제부터 당신은",
      "당신은 이제",
      "인 척",
      "처럼 행동",
      "역할을 해",
      "역할을 맡",
    ],
    unbound: ["제한* 없는", "제약* 없는", "규칙* 없는", "무제한", "개발자 모드", "dan"],
    hush: ["말하지 마", "말하지마", "알리지 마", "알리지마", "전하지 마", "몰래", "숨겨"],
    user: ["사용자", "유저", "고객"],
  },
  th: {
    override: ["เพิกเฉย", "ไม่ต้องสนใจ", "ลืม", "ละเว้น", "ไม่ต้องทำตาม"],
    target: ["คำสั่ง", "คำแนะนำ", "พรอมต์"],
    weakTarget: ["กฎ", "ข้อจำกัด"],
    scope: ["ก่อนหน้า", "ข้างต้น", "ระบบ", "เดิม", "ทั้งหมด"],
    weakScope: ["ทั้งหมด", "ของคุณ"],
    reveal: ["แสดง", "เปิดเผย", "พิมพ์", "บอก"],
    secret: ["พรอมต์ระบบ", "คำสั่งระบบ", "คำสั่งของคุณ", "คำสั่งที่ซ่อน"],
    persona: ["ตอนนี้คุณคือ", "ตอนนี้คุณเป็น", "จากนี้ไปคุณคือ", "แสร้งว่า", "ทำตัวเป็น", "สวมบทบาท"],
    unbound: ["ไม่มีข้อจำกัด", "ไร้ข้อจำกัด", "ไม่มีกฎ", "ไม่มีการเซ็นเซอร์", "dan"],
    hush: ["อย่าบอก", "ไม่ต้องบอก", "ปิดบัง", "ซ่อน"],
    user: ["ผู้ใช้", "ลูกค้า"],
  },
};

/** Scripts written without spaces between words: a term matches anywhere. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;
/** Arabic-script words take the article and one-letter prefixes (al-, wa-, bi-, li-, ka-). */
const PREFIXED = /\p{Script=Arabic}/u;
const ARABIC_PREFIX = "(?<![\\p{L}\\p{N}])(?:[وفبلك]?(?:ال)?)";

/**
 * The reading the table is matched against, and the form its terms are kept in: compatibility
 * forms folded, every mark dropped (accents, Arabic vowel signs, Indic vowel signs: the same on
 * both sides, so a term still matches), lower case, and letter variants that writers mix folded.
 */
export function looseView(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[ıİ]/g, "i")
    .replace(/ł/g, "l")
    .replace(/đ/g, "d")
    .replace(/ø/g, "o")
    .replace(/ß/g, "ss")
    .replace(/[أإآٱ]/g, "ا")
    .replace(/ى/g, "ي")
    .replace(/ة/g, "ه")
    .replace(/ؤ/g, "و")
    .replace(/ئ/g, "ي")
    .replace(/[ـ]/g, "")
    .replace(/[ک]/g, "ك")
    .replace(/[ی]/g, "ي")
    .replace(/[‘’ʼ`´]/g, "'")
    .replace(/\s+/gu, " ");
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function termSource(raw: string): string {
  const term = looseView(raw);
  const body = term
    .split("*")
    .map((part) => escape(part.trim()).replace(/ /g, "\\s+"))
    .join("[\\p{L}\\p{N}'\\s-]{0,24}?");
  if (UNSPACED.test(term)) return body;
  if (PREFIXED.test(term)) return `${ARABIC_PREFIX}${body.replace(/^ال/, "")}`;
  // Other terms start a word (inflections follow); the shortest Latin ones ("dan", "tu", "tum") are whole words.
  const start = "(?<![\\p{L}\\p{N}])";
  return /^\p{Script=Latin}{1,3}$/u.test(term) ? `${start}${body}(?![\\p{L}\\p{N}])` : `${start}${body}`;
}

const group = (terms: readonly string[]) => new RegExp(terms.map(termSource).join("|"), "giu");

interface Compiled {
  override: RegExp;
  target: RegExp;
  weakTarget: RegExp;
  scope: RegExp;
  weakScope: RegExp;
  reveal: RegExp;
  secret: RegExp;
  persona: RegExp;
  unbound: RegExp;
  hush: RegExp;
  user: RegExp;
}

const COMPILED: Compiled[] = Object.values(LEXICONS).map(
  (lex) => Object.fromEntries(Object.entries(lex).map(([k, terms]) => [k, group(terms)])) as unknown as Compiled,
);

/** How far (in characters of the loose reading) the words of one intent may stand from its verb. */
const REACH = 70;

/** Sentences: the words of one intent stand in one. Commas stay, so "X, Y" clauses read together. */
const SENTENCE_RE = /[^.!?;\n。！？؟।॥։።]+/gu;

function near(verb: RegExp, sentence: string, test: (window: string) => boolean): boolean {
  for (const m of sentence.matchAll(verb)) {
    const window = sentence.slice(Math.max(0, m.index - REACH), m.index + m[0].length + REACH);
    if (test(window)) return true;
  }
  return false;
}

const has = (re: RegExp, s: string) => {
  re.lastIndex = 0;
  const hit = re.test(s);
  re.lastIndex = 0;
  return hit;
};

function intends(lex: Compiled, sentence: string): boolean {
  return (
    near(
      lex.override,
      sentence,
      (w) => (has(lex.target, w) && (has(lex.scope, w) || has(lex.weakScope, w))) || (has(lex.weakTarget, w) && has(lex.scope, w)),
    ) ||
    near(lex.reveal, sentence, (w) => has(lex.secret, w)) ||
    near(lex.persona, sentence, (w) => has(lex.unbound, w)) ||
    near(lex.hush, sentence, (w) => has(lex.user, w))
  );
}

/** Whether a text gives one of the four injection intents in a language of the table. */
export function isForeignInjection(text: string): boolean {
  const loose = looseView(text);
  for (const [sentence] of loose.matchAll(SENTENCE_RE)) {
    if (COMPILED.some((lex) => intends(lex, sentence))) return true;
  }
  return false;
}
